migrate((app) => {
  const members = new Collection({
    type: "auth",
    name: "members",
    listRule: "id = @request.auth.id",
    viewRule: "id = @request.auth.id",
    passwordAuth: { enabled: true, identityFields: ["email"] },
    fields: [{ name: "nickname", type: "text", max: 30 }],
  })
  app.save(members)

  const m = new Record(members)
  m.setEmail("member@example.com")
  m.setPassword("member-password-1")
  m.set("nickname", "mem")
  app.save(m)

  const settings = app.settings()
  settings.meta.appName = "Migrated app"
  app.save(settings)
}, (app) => {
  app.delete(app.findCollectionByNameOrId("members"))
})
