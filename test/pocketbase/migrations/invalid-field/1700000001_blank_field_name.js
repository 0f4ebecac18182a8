migrate((app) => {
  app.save(new Collection({ name: "x", fields: [{ name: "", type: "text" }] }))
})
