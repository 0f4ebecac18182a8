// a pre-0.23 migration, as 29 of the corpus' files are
migrate((db) => {
  const dao = new Dao(db);
  const collection = dao.findCollectionByNameOrId("users");
  collection.listRule = "";
  return dao.saveCollection(collection);
}, (db) => {
  return null;
})
