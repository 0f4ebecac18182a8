/* eslint-disable */
// PocketBase JSVM globals ($filesystem, MailerMessage, …): not a module of this repo.
/// <reference path="../pb_data/types.d.ts" />
// $filesystem files saved into a record's file field, and a mail's cc, bcc and attachments.

routerAdd('POST', '/files/bytes', (e) => {
  const f = $filesystem.fileFromBytes('hello from bytes', 'Hello World.txt')
  const rec = new Record($app.findCollectionByNameOrId('docs'))
  // The title keeps the name the file was given, to compare with the stored one.
  rec.set('title', f.name)
  rec.set('doc', f)
  $app.save(rec)
  return e.json(200, {
    originalName: f.originalName,
    size: f.size,
    nameForm: /^hello_world_[a-z0-9]{10}\.txt$/.test(f.name),
  })
})

routerAdd('POST', '/files/path', (e) => {
  const f = $filesystem.fileFromPath(__hooks + '/middleware-files/note.txt')
  const rec = new Record($app.findCollectionByNameOrId('docs'))
  rec.set('title', f.name)
  rec.set('docs', [f, $filesystem.fileFromBytes([104, 105], 'hi.txt')])
  $app.save(rec)
  return e.json(200, { originalName: f.originalName, size: f.size })
})

routerAdd('GET', '/files/list', (e) => {
  const records = $app.findRecordsByFilter('docs', "title != ''", 'title', 10, 0)
  return e.json(
    200,
    records.map((r) => ({
      doc: r.getString('doc') === r.getString('title'),
      docs: r.getStringSlice('docs').length,
      firstOfDocs: r.getStringSlice('docs')[0] === r.getString('title'),
    })),
  )
})

routerAdd('POST', '/files/outside', (e) => {
  try {
    $filesystem.fileFromPath('/etc/hostname')
    return e.json(200, { read: true })
  } catch (err) {
    return e.json(200, { read: false })
  }
})

routerAdd('POST', '/files/missing', (e) => {
  try {
    $filesystem.fileFromPath(__hooks + '/middleware-files/missing.txt')
    return e.json(200, { read: true })
  } catch (err) {
    return e.json(200, { read: false })
  }
})

// PB_HTTP_TARGET: the test's HTTP target (test/pocketbase/hooks/http-target.ts).
routerAdd('POST', '/files/url', (e) => {
  const base = $os.getenv('PB_HTTP_TARGET')
  const f = $filesystem.fileFromURL(base + '/text')
  const rec = new Record($app.findCollectionByNameOrId('docs'))
  rec.set('title', f.name)
  rec.set('doc', f)
  $app.save(rec)
  let failed = ''
  try {
    $filesystem.fileFromURL(base + '/missing', 10)
  } catch (err) {
    failed = String(err).replace(base, 'TARGET')
  }
  return e.json(200, { originalName: f.originalName, size: f.size, failed: failed })
})

routerAdd('POST', '/mail/copies', (e) => {
  const message = new MailerMessage({
    from: { address: 'app@example.com', name: 'App' },
    to: [{ address: 'to@example.com', name: 'To' }],
    cc: [{ address: 'cc1@example.com', name: 'Copy One' }, { address: 'cc2@example.com' }],
    bcc: [{ address: 'hidden@example.com', name: 'Hidden' }],
    subject: 'With copies',
    html: '<p>copies</p>',
  })
  $app.newMailClient().send(message)
  return e.json(200, { cc: message.cc.length, bcc: message.bcc.length })
})

routerAdd('POST', '/mail/attachments', (e) => {
  const a = $filesystem.fileFromBytes('attached text', 'a.txt')
  const b = $filesystem.fileFromPath(__hooks + '/middleware-files/note.txt')
  const message = new MailerMessage({
    from: { address: 'app@example.com', name: 'App' },
    to: [{ address: 'to@example.com' }],
    subject: 'With attachments',
    html: '<p>files</p>',
    attachments: { 'first.txt': a.reader.open(), 'note.txt': b.reader.open() },
  })
  $app.newMailClient().send(message)
  return e.json(200, { sent: true })
})

routerAdd('POST', '/mail/attachment-text', (e) => {
  const message = new MailerMessage({
    from: { address: 'app@example.com', name: 'App' },
    to: [{ address: 'to@example.com' }],
    subject: 'Text attachment',
    html: '<p>text</p>',
    attachments: { 'plain.txt': 'just text' },
  })
  $app.newMailClient().send(message)
  return e.json(200, { sent: true })
})
