/// <reference path="../pb_data/types.d.ts" />
migrate((app) => {
  const collection = app.findCollectionByNameOrId("_pb_users_auth_")

  // update collection data
  unmarshal({
    "authToken": {
      "duration": 94670856
    },
    "otp": {
      "enabled": true,
      "length": 6
    }
  }, collection)

  return app.save(collection)
}, (app) => {
  const collection = app.findCollectionByNameOrId("_pb_users_auth_")

  // update collection data
  unmarshal({
    "authToken": {
      "duration": 432000
    },
    "otp": {
      "enabled": false,
      "length": 8
    }
  }, collection)

  return app.save(collection)
})
