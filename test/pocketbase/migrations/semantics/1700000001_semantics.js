// How app calls behave inside a migration: errors a try/catch sees, reads after writes.
migrate((app) => {
  const probe = new Collection({
    name: "probe",
    fields: [{ name: "key", type: "text" }, { name: "value", type: "text" }],
  })
  app.save(probe)
  const note = (key, value) => app.save(new Record(probe, { key: key, value: String(value) }))

  try { app.save(new Collection({ name: "" })) } catch (e) { note("a blank collection name", e) }
  try { app.findCollectionByNameOrId("missing") } catch (e) { note("a missing collection", e) }
  try { app.findFirstRecordByFilter("probe", "key = 'nothing'") } catch (e) { note("a missing record", e) }
  note("records found after three saves", app.findRecordsByFilter("probe", "", "", 0, 0).length)

  const r = new Record(probe, { key: "saved" })
  note("isNew before save", r.isNew())
  app.save(r)
  note("id length after save", r.id.length)
  note("isNew after save", r.isNew())
  note("found by id", app.findRecordById("probe", r.id).get("key"))
  note("the collection id", probe.id)
  note("a field added without id", (() => {
    const other = new Collection({ name: "other" })
    const f = new TextField({ name: "later" })
    other.fields.add(f)
    return f.id
  })())
})
