// hand-written seed data: records, finds after saves, raw SQL with bound parameters
migrate((app) => {
  const tags = app.findCollectionByNameOrId("tags")
  for (const label of ["go", "js", "sql"]) {
    const r = new Record(tags, { label: label })
    app.save(r)
  }
  const js = app.findFirstRecordByFilter("tags", "label = {:l}", { l: "js" })

  const posts = app.findCollectionByNameOrId("posts")
  const p = new Record(posts)
  p.set("title", "Hello migrations")
  p.set("status", "published")
  p.set("featured", true)
  p.set("tags", [js.id])
  app.save(p)

  const draft = new Record(posts, { title: "A draft", status: "draft" })
  app.save(draft)
  draft.set("title", "A draft, renamed")
  app.save(draft)

  const found = app.findRecordsByFilter("posts", "status = 'published'", "-title", 10, 0)
  if (found.length !== 1) throw new Error("expected one published post, got " + found.length)

  app.db()
    .newQuery("UPDATE tags SET label = {:to} WHERE label = {:from}")
    .bind({ to: "golang", from: "go" })
    .execute()

  const rows = arrayOf(new DynamicModel({ label: "" }))
  app.db().newQuery("SELECT label FROM tags ORDER BY label").all(rows)
  if (rows.map((r) => r.label).join(",") !== "golang,js,sql")
    throw new Error("unexpected labels " + JSON.stringify(rows))
}, (app) => {
  app.db().newQuery("DELETE FROM posts").execute()
  app.db().newQuery("DELETE FROM tags").execute()
})
