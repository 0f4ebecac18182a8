migrate((app) => {
  const c = new Collection({ name: "strict", fields: [{ name: "n", type: "number", required: true }] })
  app.save(c)
  app.save(new Record(c, {}))
}, (app) => {})
