/* eslint-disable */
// PocketBase JSVM globals (onRecordAuthRequest, …): not a module of this repo.
/// <reference path="../pb_data/types.d.ts" />
// The auth request hooks, the record execute/validate hooks, a mailer hook, a collection hook.

onRecordAuthRequest((e) => {
  if (e.record.get('email') === 'stop@example.com')
    return e.json(200, { stopped: true, method: e.authMethod })
  e.meta = {
    hook: 'meta',
    method: e.authMethod,
    email: e.record.get('email'),
    coll: e.collection.name,
    tok: typeof e.token,
    tokLen: e.token.length > 20,
  }
  if (e.record.get('email') === 'tok@example.com') e.token = 'replaced-token'
  e.next()
}, 'users')

// tagged with another collection: never runs for users
onRecordAuthRequest((e) => {
  throw new BadRequestError('not for users')
}, 'nope')

onRecordAuthWithPasswordRequest((e) => {
  if (e.identity === 'blocked@example.com') throw new BadRequestError('blocked', { why: 'x' })
  if (e.identity === 'who@example.com')
    return e.json(200, {
      rec: e.record,
      idf: e.identityField,
      pw: e.password,
      coll: e.collection.name,
    })
  if (e.identity === 'a@example.com' && e.record) e.record.set('name', e.record.get('name') + '|pw')
  e.next()
}, 'users')

onRecordAuthRefreshRequest((e) => {
  if (e.record.get('email') === 'd@example.com') return e.json(200, { refreshSkipped: e.record.id })
  e.next()
})

onRecordCreate((e) => {
  const n = e.record.get('name')
  if (!n.startsWith('v')) e.record.set('name', n + '|create')
  e.next()
}, 'users')

onRecordValidate((e) => {
  const n = e.record.get('name')
  if (n === 'vthrow') throw new Error('validate failed')
  if (n === 'vskip') return
  e.record.set('name', n + '|validate')
  e.next()
}, 'users')

onRecordValidate((e) => {
  e.record.set('name', e.record.get('name') + '|validate2')
  e.next()
}, 'users')

onRecordCreateExecute((e) => {
  if (e.record.get('name').startsWith('xskip')) return
  e.record.set('name', e.record.get('name') + '|exec')
  e.next()
}, 'users')

onRecordUpdateExecute((e) => {
  if (e.record.get('name') === 'uthrow') throw new BadRequestError('update execute says no')
  e.record.set('name', e.record.get('name') + '|uexec')
  e.next()
}, 'users')

onRecordDeleteExecute((e) => {
  if (e.record.get('email') === 'd@example.com') return
  e.next()
}, 'users')

onRecordRequestPasswordResetRequest((e) => {
  if (e.record.get('email') === 'stop@example.com')
    return e.json(200, { skipped: e.record.get('email'), coll: e.collection.name })
  e.next()
})

onMailerRecordPasswordResetSend((e) => {
  const r = e.record
  r.set(
    'name',
    'mailed:' + (e.message.to[0].address === r.get('email')) + ':' + typeof e.meta.token,
  )
  $app.save(r)
})

onCollectionCreate((e) => {
  if (e.collection.name === 'blocked') throw new BadRequestError('no ' + e.collection.type)
  e.next()
})

onCollectionUpdate((e) => {
  if (e.collection.name === 'renamed')
    throw new BadRequestError('no renaming to ' + e.collection.name)
  e.next()
})

onCollectionDelete((e) => {
  if (e.collection.name === 'notes') return
  e.next()
})

onRecordRequestVerificationRequest((e) => {
  return e.json(200, { verify: e.record.get('email'), coll: e.collection.name })
}, 'users')

onRecordRequestEmailChangeRequest((e) => {
  return e.json(200, { from: e.record.get('email'), to: e.newEmail })
}, 'users')

onRecordRequestOTPRequest((e) => {
  return e.json(200, { otpFor: e.record ? e.record.get('email') : null })
}, 'users')

onCollectionViewRequest((e) => {
  if (e.requestInfo().headers['x_hooked'] !== '1') return e.next()
  return e.json(200, {
    viewed: e.collection.name,
    type: e.collection.type,
    auth: e.hasSuperuserAuth(),
  })
})

onCollectionDeleteRequest((e) => {
  if (e.requestInfo().headers['x_hooked'] === '1')
    throw new ForbiddenError('not ' + e.collection.name)
  e.next()
})

onCollectionsListRequest((e) => {
  if (e.requestInfo().headers['x_hooked'] !== '1') return e.next()
  return e.json(200, {
    some: e.collections.length > 0,
    users: e.collections.some((c) => c.name === 'users'),
    total: e.result.totalItems > 0,
    page: e.result.page,
  })
})

onCollectionCreateRequest((e) => {
  if (e.collection.name === 'hooked_create') {
    e.collection.listRule = ''
    e.collection.viewRule = 'id != ""'
  }
  e.next()
})

onCollectionUpdateRequest((e) => {
  if (e.requestInfo().headers['x_hooked'] === '1')
    return e.json(200, {
      name: e.collection.name,
      type: e.collection.type,
      listRule: e.collection.listRule,
    })
  if (e.collection.name === 'hooked_create') e.collection.deleteRule = 'id = "z"'
  e.next()
})

onCollectionsImportRequest((e) => {
  return e.json(200, {
    n: e.collectionsData.length,
    first: e.collectionsData[0].name,
    deleteMissing: e.deleteMissing,
  })
})
