migrate((app) => {
  const collection = app.findCollectionByNameOrId("pbc_notes00001");
  return app.delete(collection);
}, (app) => {
  return null;
})
