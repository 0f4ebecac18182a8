/// <reference path="../pb_data/types.d.ts" />
migrate((app) => {
  const collection = app.findCollectionByNameOrId("pbc_3142635823")

  // update collection data
  unmarshal({
    "authToken": {
      "duration": 94670856
    }
  }, collection)

  return app.save(collection)
}, (app) => {
  const collection = app.findCollectionByNameOrId("pbc_3142635823")

  // update collection data
  unmarshal({
    "authToken": {
      "duration": 86400
    }
  }, collection)

  return app.save(collection)
})
