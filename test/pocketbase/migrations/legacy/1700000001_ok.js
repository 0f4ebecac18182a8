migrate((app) => {
  app.save(new Collection({ name: "before_legacy" }))
}, (app) => {})
