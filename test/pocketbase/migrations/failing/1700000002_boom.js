migrate((app) => {
  app.save(new Collection({ name: "half_done" }))
  throw new Error("boom")
}, (app) => {})
