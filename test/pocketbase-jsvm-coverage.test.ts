/**
 * Issue 35's "a hooks suite covering each JSVM member listed in the reference's ranking, each
 * compared with the oracle's answer": every member of the ranking
 * (`../shared/reference/pocketbase-jsvm.md` §7, the top 40 and the next 23) and every `on…`
 * hook of PocketBase 0.40.4's JSVM (`pocketbase-jsvm-types.d.ts`) appears in a file that a
 * recorded suite ran on PocketBase and replays here (`test/pocketbase/hooks/*.pb.js`, the
 * migration folders of `test/pocketbase/migrations/`, the app folder of
 * `test/pocketbase/folder/`). A member dropped from every recorded file fails this test.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const here = join(import.meta.dirname, 'pocketbase')

/** The JavaScript files under `dir` (recursively). */
function scripts(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...scripts(path))
    else if (name.endsWith('.js')) out.push(path)
  }
  return out
}

const hookFiles = readdirSync(join(here, 'hooks')).filter((n) => n.endsWith('.pb.js'))
/** Where the recorded suites name their files (cases and recorders). */
const suiteSources = readdirSync(join(here, 'hooks'))
  .filter((n) => /^(cases.*|record.*)\.ts$/.test(n))
  .map((n) => readFileSync(join(here, 'hooks', n), 'utf8'))
  .join('\n')
const recorded = [
  ...hookFiles.map((n) => join(here, 'hooks', n)),
  ...scripts(join(here, 'migrations')),
  ...scripts(join(here, 'folder', 'app', 'pb_hooks')),
  ...scripts(join(here, 'folder', 'app', 'pb_migrations')),
]
const text = recorded.map((f) => readFileSync(f, 'utf8')).join('\n')

/** The ranking's members, each as it is written in a script. */
const RANKED: Array<[string, RegExp]> = [
  ['app.save', /\bapp\.save\(/],
  ['findCollectionByNameOrId', /\.findCollectionByNameOrId\(/],
  ['collection.fields', /\.fields\b/],
  ['migrate', /\bmigrate\(/],
  ['unmarshal', /\bunmarshal\(/],
  ['new Field', /new Field\(/],
  ['fields.addAt', /\.fields\.addAt\(/],
  ['record.get', /\.get\(["'`]/],
  ['fields.removeById', /\.fields\.removeById\(/],
  ['fields.add', /\.fields\.add\(/],
  ['console.log', /console\.log\(/],
  ['new Collection', /new Collection\(/],
  ['app.delete', /\bapp\.delete\(/],
  ['record.set', /\.set\(["'`]/],
  ['$app.logger', /\$app\.logger\(\)/],
  ['$app.db', /\$app\.db\(\)/],
  ['record.id', /\.record\.id\b|\brecord\.id\b/],
  ['db.newQuery', /\.newQuery\(/],
  ['query.all', /\.all\(/],
  ['e.request', /\be\.request\b/],
  ['e.record', /\be\.record\b/],
  ['new BadRequestError', /new BadRequestError\(/],
  ['routerAdd', /\brouterAdd\(/],
  ['$http.send', /\$http\.send\(/],
  ['e.request.url', /\be\.request\.url\b/],
  ['url.query().get', /\.url\.query\(\)\.get\(/],
  ['$app.findRecordById', /\$app\.findRecordById\(/],
  ['logger.debug', /\.debug\(/],
  ['e.html', /\be\.html\(/],
  ['new DynamicModel', /new DynamicModel\(/],
  ['arrayOf', /\barrayOf\(/],
  ['logger.info', /\.info\(/],
  ['e.auth', /\be\.auth\b/],
  ['e.next', /\be\.next\(\)/],
  ['collection.listRule', /\.listRule\b/],
  ['e.meta', /\be\.meta\b/],
  ['create/update/deleteRule', /\.(createRule|updateRule|deleteRule)\b/],
  ['query.bind', /\.bind\(/],
  ['new Record', /new Record\(/],
  ['$template.loadFiles', /\$template\.loadFiles\(/],
  ['$app.findAllRecords', /\$app\.findAllRecords\(/],
  ['logger.error', /logger\(\)\.error\(|\.error\(/],
  ['collection.id', /\bcollection\.id\b|\.collection\.id\b/],
  ['e.json', /\be\.json\(/],
  ['$apis.requireAuth', /\$apis\.requireAuth\(/],
  ['$app.findRecordsByFilter', /\$app\.findRecordsByFilter\(/],
  ['collection.viewRule', /\.viewRule\b/],
  ['onRecordCreateRequest', /\bonRecordCreateRequest\(/],
  ['record.email', /\.email\(\)/],
  ['record.getInt', /\.getInt\(/],
  ['fields.getByName', /\.fields\.getByName\(/],
  ['e.requestInfo', /\be\.requestInfo\(\)/],
  ['importCollections', /\.importCollections\(/],
  ['new ForbiddenError', /new ForbiddenError\(/],
  ['new InternalServerError', /new InternalServerError\(/],
  ['e.collection', /\be\.collection\b/],
  ['e.request.pathValue', /\.pathValue\(/],
  ['onRecordUpdateRequest', /\bonRecordUpdateRequest\(/],
  ['$app.findRecordsByIds', /\$app\.findRecordsByIds\(/],
  ['onRecordAfterCreateSuccess', /\bonRecordAfterCreateSuccess\(/],
  ['onRecordUpdateExecute', /\bonRecordUpdateExecute\(/],
  ['onRecordAfterUpdateSuccess', /\bonRecordAfterUpdateSuccess\(/],
  ['onRecordAuthRequest', /\bonRecordAuthRequest\(/],
]

/** Every `on…` hook function of PocketBase 0.40.4's JSVM (`onServe` has no JS global). */
const HOOKS = [
  'onBackupCreate',
  'onBackupRestore',
  'onBatchRequest',
  'onBootstrap',
  'onBootstrapClear',
  'onCollectionAfterCreateError',
  'onCollectionAfterCreateSuccess',
  'onCollectionAfterDeleteError',
  'onCollectionAfterDeleteSuccess',
  'onCollectionAfterUpdateError',
  'onCollectionAfterUpdateSuccess',
  'onCollectionCreate',
  'onCollectionCreateExecute',
  'onCollectionCreateRequest',
  'onCollectionDelete',
  'onCollectionDeleteExecute',
  'onCollectionDeleteRequest',
  'onCollectionUpdate',
  'onCollectionUpdateExecute',
  'onCollectionUpdateRequest',
  'onCollectionValidate',
  'onCollectionViewRequest',
  'onCollectionsImportRequest',
  'onCollectionsListRequest',
  'onFileDownloadRequest',
  'onFileTokenRequest',
  'onMailerRecordAuthAlertSend',
  'onMailerRecordEmailChangeSend',
  'onMailerRecordOTPSend',
  'onMailerRecordPasswordResetSend',
  'onMailerRecordVerificationSend',
  'onMailerSend',
  'onModelAfterCreateError',
  'onModelAfterCreateSuccess',
  'onModelAfterDeleteError',
  'onModelAfterDeleteSuccess',
  'onModelAfterUpdateError',
  'onModelAfterUpdateSuccess',
  'onModelCreate',
  'onModelCreateExecute',
  'onModelDelete',
  'onModelDeleteExecute',
  'onModelUpdate',
  'onModelUpdateExecute',
  'onModelValidate',
  'onRealtimeConnectRequest',
  'onRealtimeMessageSend',
  'onRealtimeSubscribeRequest',
  'onRecordAfterCreateError',
  'onRecordAfterCreateSuccess',
  'onRecordAfterDeleteError',
  'onRecordAfterDeleteSuccess',
  'onRecordAfterUpdateError',
  'onRecordAfterUpdateSuccess',
  'onRecordAuthRefreshRequest',
  'onRecordAuthRequest',
  'onRecordAuthWithOTPRequest',
  'onRecordAuthWithPasswordRequest',
  'onRecordConfirmEmailChangeRequest',
  'onRecordConfirmPasswordResetRequest',
  'onRecordConfirmVerificationRequest',
  'onRecordCreate',
  'onRecordCreateExecute',
  'onRecordCreateRequest',
  'onRecordDelete',
  'onRecordDeleteExecute',
  'onRecordDeleteRequest',
  'onRecordEnrich',
  'onRecordRequestEmailChangeRequest',
  'onRecordRequestOTPRequest',
  'onRecordRequestPasswordResetRequest',
  'onRecordRequestVerificationRequest',
  'onRecordUpdate',
  'onRecordUpdateExecute',
  'onRecordUpdateRequest',
  'onRecordValidate',
  'onRecordViewRequest',
  'onRecordsListRequest',
  'onSettingsListRequest',
  'onSettingsReload',
  'onSettingsUpdateRequest',
  'onTerminate',
]

describe('the recorded PocketBase suites cover the JSVM real apps use', () => {
  it('every hook file of test/pocketbase/hooks is run by a recorded suite', () => {
    expect(hookFiles.filter((f) => !suiteSources.includes(f))).toEqual([])
  })

  it('every member of the reference ranking is used in a recorded file', () => {
    expect(RANKED.filter(([, re]) => !re.test(text)).map(([name]) => name)).toEqual([])
  })

  it('every on… hook of PocketBase 0.40.4 is bound in a recorded file', () => {
    expect(HOOKS.length).toBe(82)
    expect(HOOKS.filter((h) => !new RegExp(`\\b${h}\\(`).test(text))).toEqual([])
  })
})
