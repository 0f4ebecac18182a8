migrate((app) => {
  const settings = app.settings()
  settings.meta.appName = ""
  app.save(settings)
})
