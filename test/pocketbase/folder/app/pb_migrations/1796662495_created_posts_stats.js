/// <reference path="../pb_data/types.d.ts" />
migrate((app) => {
  const collection = new Collection({
    "createRule": null,
    "deleteRule": null,
    "fields": [
      {
        "autogeneratePattern": "",
        "help": "",
        "hidden": false,
        "id": "text3208210256",
        "max": 0,
        "min": 0,
        "name": "id",
        "pattern": "^[a-z0-9]+$",
        "presentable": false,
        "primaryKey": true,
        "required": true,
        "system": true,
        "type": "text"
      },
      {
        "autogeneratePattern": "",
        "help": "",
        "hidden": false,
        "id": "_clone_Jkn0",
        "max": 100,
        "min": 1,
        "name": "title",
        "pattern": "",
        "presentable": false,
        "primaryKey": false,
        "required": true,
        "system": false,
        "type": "text"
      },
      {
        "help": "",
        "hidden": false,
        "id": "_clone_sAS9",
        "max": null,
        "min": 0,
        "name": "views",
        "onlyInt": true,
        "presentable": false,
        "required": false,
        "system": false,
        "type": "number"
      },
      {
        "help": "",
        "hidden": false,
        "id": "_clone_nkmY",
        "maxSelect": 2,
        "maxSize": 0,
        "mimeTypes": [
          "image/png"
        ],
        "name": "img",
        "presentable": false,
        "protected": false,
        "required": false,
        "system": false,
        "thumbs": [
          "20x20"
        ],
        "type": "file"
      }
    ],
    "id": "pbc_473428401",
    "indexes": [],
    "listRule": "",
    "name": "posts_stats",
    "system": false,
    "type": "view",
    "updateRule": null,
    "viewQuery": "SELECT p.id, p.title, p.views, p.img FROM posts p WHERE p.published = TRUE",
    "viewRule": ""
  });

  return app.save(collection);
}, (app) => {
  const collection = app.findCollectionByNameOrId("pbc_473428401");

  return app.delete(collection);
})
