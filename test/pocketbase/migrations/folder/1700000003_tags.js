// hand-written: typed field classes, fields.add, a relation to a collection saved just before
migrate((app) => {
  const tags = new Collection({ name: "tags", listRule: "", viewRule: "" })
  tags.fields.add(new TextField({ name: "label", required: true, max: 40 }))
  tags.fields.add(new AutodateField({ name: "created", onCreate: true }))
  tags.addIndex("idx_tags_label", true, "`label`", "")
  app.save(tags)

  const saved = app.findCollectionByNameOrId("tags")
  const posts = app.findCollectionByNameOrId("posts")
  posts.fields.add(new RelationField({ name: "tags", collectionId: saved.id, maxSelect: 5 }))
  posts.fields.getByName("status").values = ["draft", "published", "archived"]
  app.save(posts)
}, (app) => {
  const posts = app.findCollectionByNameOrId("posts")
  posts.fields.removeByName("tags")
  app.save(posts)
  app.delete(app.findCollectionByNameOrId("tags"))
})
