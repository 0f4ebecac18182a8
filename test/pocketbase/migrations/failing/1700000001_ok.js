migrate((app) => {
  app.save(new Collection({ name: "kept_if_ok", fields: [{ name: "a", type: "text" }] }))
}, (app) => {})
