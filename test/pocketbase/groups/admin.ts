/**
 * Settings, logs, crons, backups, health, the SQL endpoint and errors of every kind (malformed
 * bodies, wrong content types and methods, unknown routes, long ids, path traversal, junk query
 * strings). Only answers that do not depend on timing are asked: log queries that match nothing,
 * backup listings of known sizes (or `fields=key`), SQL answers without `execTime`.
 */
import type { Group, Step } from '../harness.js'

type Method = Step['method']

/** A step as the superuser. */
const su = (name: string, method: Method, path: string, extra: Partial<Step> = {}): Step => ({
  name,
  method,
  path,
  as: 'su',
  ...extra,
})

/** A step as a guest (no token). */
const guest = (name: string, method: Method, path: string, extra: Partial<Step> = {}): Step => ({
  name,
  method,
  path,
  ...extra,
})

/** A step as the plain user signed in below. */
const user = (name: string, method: Method, path: string, extra: Partial<Step> = {}): Step => ({
  name,
  method,
  path,
  as: 'utok',
  ...extra,
})

const patch = (name: string, body: unknown): Step =>
  su(`settings ${name}`, 'PATCH', '/api/settings', { body })

const json = { 'content-type': 'application/json' }
const q = encodeURIComponent

/** A throwaway P-256 key (PKCS#8), only for the Apple client-secret endpoint. */
const EC_KEY = [
  '-----BEGIN PRIVATE KEY-----',
  'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgoLSO9mbS1HYv72Qk',
  'Q3AwvgzpLC3OUobSvGndT0T/eZahRANCAARjGlHyi0osi8TnQePAriqdjB+CQuIL',
  'uTvHJarZ3hP87mf+9IrVeCBaxpdo6bfiwhssxFr3IcKl9BZPifXB1gnP',
  '-----END PRIVATE KEY-----',
  '',
].join('\n')

/** 16 bytes with a ZIP signature but no central directory: never restored. */
const FAKE_ZIP = Buffer.from('PK\x03\x04junkjunkjunk', 'latin1').toString('base64')

/** A well-formed 116-byte ZIP (one stored entry, `data.db` = "junk", fixed date): never restored. */
const REAL_ZIP =
  'UEsDBBQAAAAAAAAAIVA5nPsGBAAAAAQAAAAHAAAAZGF0YS5kYmp1bmtQSwECFAMUAAAAAAAAACFQOZz7BgQAAAAEAAAABwAA' +
  'AAAAAAAAAAAAgAEAAAAAZGF0YS5kYlBLBQYAAAAAAQABADUAAAApAAAAAAA='

const USER = 'usr000000000001'
const NOTE = 'nte000000000001'

const setup: Step[] = [
  guest('setup user create', 'POST', '/api/collections/users/records', {
    body: {
      id: USER,
      email: 'u1@example.com',
      password: 'password123',
      passwordConfirm: 'password123',
    },
  }),
  guest('setup user sign-in', 'POST', '/api/collections/users/auth-with-password', {
    body: { identity: 'u1@example.com', password: 'password123' },
    save: { utok: 'token' },
  }),
  su('setup collection notes', 'POST', '/api/collections', {
    body: {
      name: 'notes',
      type: 'base',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'doc', type: 'file', maxSelect: 1 },
        { name: 'created', type: 'autodate', onCreate: true, onUpdate: false },
        { name: 'updated', type: 'autodate', onCreate: true, onUpdate: true },
      ],
      listRule: '',
      viewRule: '',
      createRule: '',
      updateRule: '',
      deleteRule: '',
    },
  }),
  guest('setup note create', 'POST', '/api/collections/notes/records', {
    body: { id: NOTE, title: 'first' },
  }),
  su('setup superuser file token', 'POST', '/api/files/token', { save: { ftok: 'token' } }),
  user('setup user file token', 'POST', '/api/files/token', { save: { uftok: 'token' } }),
]

const settingsRead: Step[] = [
  su('settings get', 'GET', '/api/settings'),
  guest('settings get guest', 'GET', '/api/settings'),
  user('settings get user', 'GET', '/api/settings'),
  guest('settings get junk token', 'GET', '/api/settings', {
    headers: { authorization: 'junk' },
  }),
  guest('settings get bearer prefix', 'GET', '/api/settings', {
    headers: { authorization: 'Bearer {{su}}' },
  }),
  guest('settings get user token as bearer', 'GET', '/api/settings', {
    headers: { authorization: 'Bearer {{utok}}' },
  }),
  su('settings get fields meta', 'GET', '/api/settings?fields=meta'),
  su('settings get fields nested', 'GET', '/api/settings?fields=meta.appName,batch'),
  su('settings get fields unknown', 'GET', '/api/settings?fields=nope'),
  guest('settings patch guest', 'PATCH', '/api/settings', { body: { meta: { appName: 'X' } } }),
  user('settings patch user', 'PATCH', '/api/settings', { body: { meta: { appName: 'X' } } }),
]

/** [name, body] of PATCH /api/settings, valid and junk, section by section. */
const settingsPatches: Array<[string, unknown]> = [
  // meta
  ['meta valid', { meta: { appName: 'My App', appURL: 'https://example.org' } }],
  ['meta sender', { meta: { senderName: 'Team', senderAddress: 'team@example.org' } }],
  ['meta hideControls', { meta: { hideControls: true } }],
  ['meta accentColor', { meta: { accentColor: '#ff0000' } }],
  ['meta accentColor junk', { meta: { accentColor: 'red' } }],
  ['meta accentColor not hex', { meta: { accentColor: '#12345g' } }],
  ['meta appName blank', { meta: { appName: '' } }],
  ['meta appName long', { meta: { appName: 'a'.repeat(300) } }],
  ['meta appName number', { meta: { appName: 5 } }],
  ['meta appURL junk', { meta: { appURL: 'notaurl' } }],
  ['meta appURL ftp', { meta: { appURL: 'ftp://example.org' } }],
  ['meta appURL reset', { meta: { appURL: 'https://example.org' } }],
  ['meta appURL blank', { meta: { appURL: '' } }],
  ['meta senderAddress junk', { meta: { senderAddress: 'bad' } }],
  ['meta senderName blank', { meta: { senderName: '' } }],
  [
    'meta all junk',
    { meta: { appName: '', appURL: 'notaurl', senderName: '', senderAddress: 'bad' } },
  ],
  ['meta string', { meta: 'x' }],
  ['meta null', { meta: null }],
  // smtp
  [
    'smtp valid',
    {
      smtp: {
        enabled: false,
        host: 'smtp.example.org',
        port: 2525,
        username: 'mailer',
        password: 'secret-pass',
        authMethod: 'LOGIN',
        tls: true,
        localName: 'mail.example.org',
      },
    },
  ],
  ['smtp enabled blank host', { smtp: { enabled: true, host: '', port: 0 } }],
  ['smtp authMethod junk', { smtp: { authMethod: 'BAD' } }],
  ['smtp authMethod plain', { smtp: { authMethod: 'PLAIN' } }],
  ['smtp localName junk', { smtp: { localName: 'bad name' } }],
  ['smtp port negative', { smtp: { enabled: true, port: -1 } }],
  ['smtp port string', { smtp: { port: 'x' } }],
  ['smtp port huge', { smtp: { enabled: true, port: 70000 } }],
  ['smtp reset', { smtp: { enabled: false, port: 2525 } }],
  ['smtp host junk', { smtp: { enabled: true, host: 'bad host!' } }],
  // s3
  ['s3 enabled empty', { s3: { enabled: true } }],
  [
    's3 disabled values',
    {
      s3: {
        enabled: false,
        bucket: 'bkt',
        region: 'eu-1',
        endpoint: 'http://127.0.0.1:1',
        accessKey: 'ak',
        secret: 'sk',
        forcePathStyle: true,
      },
    },
  ],
  ['s3 enabled after values', { s3: { enabled: true } }],
  ['s3 disabled again', { s3: { enabled: false } }],
  ['s3 endpoint junk', { s3: { enabled: true, endpoint: 'not a url' } }],
  ['s3 enabled string', { s3: { enabled: 'yes' } }],
  // backups
  ['backups cron daily', { backups: { cron: '0 0 * * *' } }],
  ['backups cron macro', { backups: { cron: '@hourly' } }],
  ['backups cron ranges', { backups: { cron: '*/15 2-4 * * 1-5' } }],
  ['backups cron junk', { backups: { cron: 'bad cron' } }],
  ['backups cron out of range', { backups: { cron: '61 * * * *' } }],
  ['backups cron six fields', { backups: { cron: '*/5 * * * * *' } }],
  ['backups cron four fields', { backups: { cron: '0 0 * *' } }],
  ['backups cron unknown macro', { backups: { cron: '@weird' } }],
  ['backups cron maxKeep 0', { backups: { cron: '0 0 * * *', cronMaxKeep: 0 } }],
  ['backups maxKeep negative', { backups: { cronMaxKeep: -1 } }],
  ['backups maxKeep 7', { backups: { cronMaxKeep: 7 } }],
  ['backups s3 partial', { backups: { s3: { enabled: true, bucket: 'b' } } }],
  ['backups cron off', { backups: { cron: '' } }],
  ['backups cron number', { backups: { cron: 5 } }],
  // batch
  ['batch valid', { batch: { enabled: true, maxRequests: 10, timeout: 5, maxBodySize: 1000 } }],
  ['batch zeros', { batch: { enabled: true, maxRequests: 0, timeout: 0 } }],
  ['batch negatives', { batch: { maxBodySize: -1, maxRequests: -1, timeout: -1 } }],
  ['batch string', { batch: { maxRequests: 'x' } }],
  ['batch off', { batch: { enabled: false, maxRequests: 50, timeout: 3, maxBodySize: 0 } }],
  // rateLimits (kept disabled: the corpus itself must not be limited)
  [
    'rateLimits rules valid',
    {
      rateLimits: {
        enabled: false,
        rules: [
          { label: '/api/', audience: '', duration: 10, maxRequests: 300 },
          { label: 'users:auth', audience: '@guest', duration: 3, maxRequests: 2 },
          { label: '*:list', audience: '@auth', duration: 1, maxRequests: 50 },
          { label: 'GET /api/health', audience: '', duration: 1, maxRequests: 100 },
        ],
      },
    },
  ],
  [
    'rateLimits label junk',
    { rateLimits: { rules: [{ label: 'bad label!', duration: 1, maxRequests: 1 }] } },
  ],
  [
    'rateLimits label blank',
    { rateLimits: { rules: [{ label: '', duration: 1, maxRequests: 1 }] } },
  ],
  [
    'rateLimits zeros',
    { rateLimits: { rules: [{ label: '/api/x', duration: 0, maxRequests: 0 }] } },
  ],
  [
    'rateLimits audience junk',
    { rateLimits: { rules: [{ label: '/api/x', audience: 'nope', duration: 1, maxRequests: 1 }] } },
  ],
  [
    'rateLimits duplicate label',
    {
      rateLimits: {
        rules: [
          { label: '/api/x', duration: 1, maxRequests: 1 },
          { label: '/api/x', duration: 2, maxRequests: 2 },
        ],
      },
    },
  ],
  ['rateLimits excludedIPs junk', { rateLimits: { excludedIPs: ['bad', '10.0.0.0/8'] } }],
  ['rateLimits excludedIPs valid', { rateLimits: { excludedIPs: ['10.0.0.1', '10.1.0.0/16'] } }],
  ['rateLimits rules string', { rateLimits: { rules: 'x' } }],
  ['rateLimits rules empty', { rateLimits: { rules: [] } }],
  // trustedProxy
  ['trustedProxy headers', { trustedProxy: { headers: ['X-Real-IP'], useLeftmostIP: true } }],
  ['trustedProxy blank header', { trustedProxy: { headers: [''] } }],
  ['trustedProxy blank header reset', { trustedProxy: { headers: [] } }],
  ['trustedProxy headers string', { trustedProxy: { headers: 'x' } }],
  ['trustedProxy reset', { trustedProxy: { headers: [], useLeftmostIP: false } }],
  // logs
  ['logs valid', { logs: { maxDays: 7, minLevel: -4, logIP: false, logAuthId: true } }],
  ['logs maxDays negative', { logs: { maxDays: -1 } }],
  ['logs maxDays huge', { logs: { maxDays: 100000 } }],
  ['logs minLevel 99', { logs: { minLevel: 99 } }],
  ['logs maxDataSize negative', { logs: { maxDataSize: -5 } }],
  ['logs maxDataSize valid', { logs: { maxDataSize: 100 } }],
  ['logs maxDays string', { logs: { maxDays: 'x' } }],
  [
    'logs reset',
    { logs: { maxDays: 5, minLevel: 0, logIP: true, logAuthId: false, maxDataSize: 0 } },
  ],
  // superuserIPs (junk only here; valid lists at the end of the group)
  ['superuserIPs junk', { superuserIPs: ['notanip', '300.1.1.1'] }],
  ['superuserIPs string', { superuserIPs: '127.0.0.1' }],
  // whole bodies
  ['unknown key', { nope: 1 }],
  ['empty object', {}],
  [
    'several sections junk',
    { meta: { appName: '' }, batch: { timeout: -1 }, logs: { maxDays: -1 } },
  ],
]

const settingsWrites: Step[] = [
  ...settingsPatches.map(([name, body]) => patch(name, body)),
  su('settings get after patches', 'GET', '/api/settings'),
  su('settings patch raw null', 'PATCH', '/api/settings', { raw: 'null', headers: json }),
  su('settings patch raw array', 'PATCH', '/api/settings', { raw: '[1,2]', headers: json }),
  su('settings patch raw string', 'PATCH', '/api/settings', { raw: '"str"', headers: json }),
  su('settings patch malformed', 'PATCH', '/api/settings', { raw: '{bad', headers: json }),
  su('settings patch empty body', 'PATCH', '/api/settings', { raw: '', headers: json }),
  su('settings patch text/plain', 'PATCH', '/api/settings', {
    raw: '{"meta":{"appName":"Plain"}}',
    headers: { 'content-type': 'text/plain' },
  }),
  su('settings patch form', 'PATCH', '/api/settings', {
    raw: 'meta=x',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  }),
]

const settingsTests: Step[] = [
  su('test s3 empty', 'POST', '/api/settings/test/s3', { body: {} }),
  su('test s3 storage disabled', 'POST', '/api/settings/test/s3', {
    body: { filesystem: 'storage' },
  }),
  su('test s3 backups disabled', 'POST', '/api/settings/test/s3', {
    body: { filesystem: 'backups' },
  }),
  su('test s3 unknown filesystem', 'POST', '/api/settings/test/s3', {
    body: { filesystem: 'nope' },
  }),
  su('test s3 malformed', 'POST', '/api/settings/test/s3', { raw: '{bad', headers: json }),
  guest('test s3 guest', 'POST', '/api/settings/test/s3', { body: { filesystem: 'storage' } }),
  user('test s3 user', 'POST', '/api/settings/test/s3', { body: { filesystem: 'storage' } }),
  su('test email empty', 'POST', '/api/settings/test/email', { body: {} }),
  su('test email junk', 'POST', '/api/settings/test/email', {
    body: { email: 'bad', template: 'nope' },
  }),
  su('test email bad template', 'POST', '/api/settings/test/email', {
    body: { email: 'a@example.com', template: 'nope' },
  }),
  su('test email unknown collection', 'POST', '/api/settings/test/email', {
    body: { email: 'a@example.com', template: 'verification', collection: 'nope' },
  }),
  su('test email base collection', 'POST', '/api/settings/test/email', {
    body: { email: 'a@example.com', template: 'verification', collection: 'notes' },
  }),
  su('test email no smtp', 'POST', '/api/settings/test/email', {
    body: { email: 'a@example.com', template: 'verification', collection: 'users' },
  }),
  su('test email malformed', 'POST', '/api/settings/test/email', { raw: '{bad', headers: json }),
  guest('test email guest', 'POST', '/api/settings/test/email', {
    body: { email: 'a@example.com', template: 'verification' },
  }),
  user('test email user', 'POST', '/api/settings/test/email', {
    body: { email: 'a@example.com', template: 'verification' },
  }),
  patch('smtp to closed port', { smtp: { enabled: true, host: '127.0.0.1', port: 1 } }),
  ...['verification', 'password-reset', 'email-change', 'otp', 'login-alert'].map(
    (template): Step =>
      su(`test email ${template} closed smtp`, 'POST', '/api/settings/test/email', {
        body: { email: 'a@example.com', template, collection: 'users' },
      }),
  ),
  patch('smtp off', { smtp: { enabled: false } }),
  su('apple secret empty', 'POST', '/api/settings/apple/generate-client-secret', { body: {} }),
  su('apple secret junk', 'POST', '/api/settings/apple/generate-client-secret', {
    body: { clientId: 'x', teamId: 'y', keyId: 'z', privateKey: 'junk', duration: 100 },
  }),
  su('apple secret valid', 'POST', '/api/settings/apple/generate-client-secret', {
    body: {
      clientId: 'com.example.app',
      teamId: 'ABCDE12345',
      keyId: 'KEY1234567',
      privateKey: EC_KEY,
      duration: 3600,
    },
  }),
  su('apple secret long duration', 'POST', '/api/settings/apple/generate-client-secret', {
    body: {
      clientId: 'com.example.app',
      teamId: 'ABCDE12345',
      keyId: 'KEY1234567',
      privateKey: EC_KEY,
      duration: 99_999_999,
    },
  }),
  su('apple secret bad key', 'POST', '/api/settings/apple/generate-client-secret', {
    body: {
      clientId: 'com.example.app',
      teamId: 'ABCDE12345',
      keyId: 'KEY1234567',
      privateKey: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n',
      duration: 3600,
    },
  }),
  guest('apple secret guest', 'POST', '/api/settings/apple/generate-client-secret', {
    body: {},
  }),
]

/** Log queries whose answers do not depend on what was logged when. */
const nothing = q('level = 99')
const logs: Step[] = [
  su('logs filter nothing', 'GET', `/api/logs?filter=${nothing}`),
  su('logs filter status 999', 'GET', `/api/logs?filter=${q('data.status = 999')}&sort=-created`),
  su('logs filter perPage 5', 'GET', `/api/logs?filter=${nothing}&perPage=5`),
  su('logs filter page 3', 'GET', `/api/logs?filter=${nothing}&page=3`),
  su('logs filter page negative', 'GET', `/api/logs?filter=${nothing}&page=-1`),
  su('logs filter perPage 0', 'GET', `/api/logs?filter=${nothing}&perPage=0`),
  su('logs filter perPage 5000', 'GET', `/api/logs?filter=${nothing}&perPage=5000`),
  su('logs filter skipTotal', 'GET', `/api/logs?filter=${nothing}&skipTotal=1`),
  su('logs filter fields', 'GET', `/api/logs?filter=${nothing}&fields=id,message`),
  su('logs filter sort level', 'GET', `/api/logs?filter=${nothing}&sort=level,-created`),
  su('logs filter message', 'GET', `/api/logs?filter=${q('message ~ "no-such-message"')}`),
  su('logs bad filter', 'GET', `/api/logs?filter=${q('level ==')}`),
  su('logs unknown field filter', 'GET', `/api/logs?filter=${q('nope = 1')}`),
  su('logs bad sort', 'GET', '/api/logs?sort=nope'),
  su('logs perPage junk', 'GET', '/api/logs?perPage=abc'),
  su('logs page junk', 'GET', '/api/logs?page=abc'),
  su('stats filter nothing', 'GET', `/api/logs/stats?filter=${nothing}`),
  su('stats filter status 999', 'GET', `/api/logs/stats?filter=${q('data.status = 999')}`),
  su('stats bad filter', 'GET', `/api/logs/stats?filter=${q('==')}`),
  su('stats unknown field', 'GET', `/api/logs/stats?filter=${q('nope = 1')}`),
  su('log view missing', 'GET', '/api/logs/log000000000000'),
  su('log view short', 'GET', '/api/logs/x'),
  su('log view long', 'GET', `/api/logs/${'a'.repeat(300)}`),
  su('log view space', 'GET', '/api/logs/%20'),
  guest('logs guest', 'GET', '/api/logs'),
  user('logs user', 'GET', '/api/logs'),
  guest('stats guest', 'GET', '/api/logs/stats'),
  user('stats user', 'GET', '/api/logs/stats'),
  guest('log view guest', 'GET', '/api/logs/log000000000000'),
  su('logs post', 'POST', '/api/logs', { body: {} }),
  su('logs delete', 'DELETE', '/api/logs/log000000000000'),
]

const crons: Step[] = [
  su('crons list', 'GET', '/api/crons'),
  su('crons list fields', 'GET', '/api/crons?fields=id'),
  guest('crons list guest', 'GET', '/api/crons'),
  user('crons list user', 'GET', '/api/crons'),
  ...['__pbDBOptimize__', '__pbMFACleanup__', '__pbOTPCleanup__', '__pbLogsCleanup__'].map(
    (id): Step => su(`cron run ${id}`, 'POST', `/api/crons/${id}`),
  ),
  su('cron run unknown', 'POST', '/api/crons/nope'),
  su('cron run auto backup unset', 'POST', '/api/crons/__pbAutoBackup__'),
  su('cron run space', 'POST', '/api/crons/%20'),
  su('cron run long', 'POST', `/api/crons/${'x'.repeat(300)}`),
  guest('cron run guest', 'POST', '/api/crons/__pbDBOptimize__'),
  user('cron run user', 'POST', '/api/crons/__pbDBOptimize__'),
  su('cron get one', 'GET', '/api/crons/__pbDBOptimize__'),
  su('cron delete', 'DELETE', '/api/crons/__pbDBOptimize__'),
  su('crons post', 'POST', '/api/crons', { body: {} }),
  patch('crons backups cron set', { backups: { cron: '@daily' } }),
  su('crons list with auto backup', 'GET', '/api/crons'),
  patch('crons backups cron unset', { backups: { cron: '' } }),
  su('crons list without auto backup', 'GET', '/api/crons'),
]

const zip = (file: string, content = REAL_ZIP) => ({
  file,
  content,
  base64: true,
  type: 'application/zip',
})

const backups: Step[] = [
  su('backups list empty', 'GET', '/api/backups'),
  guest('backups list guest', 'GET', '/api/backups'),
  user('backups list user', 'GET', '/api/backups'),
  su('backups upload truncated zip', 'POST', '/api/backups/upload', {
    form: { file: zip('truncated.zip', FAKE_ZIP) },
  }),
  su('backup delete truncated zip', 'DELETE', '/api/backups/truncated.zip'),
  su('backups upload zip', 'POST', '/api/backups/upload', {
    form: { file: zip('upload.zip') },
  }),
  su('backups upload duplicate', 'POST', '/api/backups/upload', {
    form: { file: zip('upload.zip') },
  }),
  su('backups upload no file', 'POST', '/api/backups/upload'),
  su('backups upload text field', 'POST', '/api/backups/upload', { form: { file: 'abc' } }),
  su('backups upload other field', 'POST', '/api/backups/upload', {
    form: { other: zip('other.zip') },
  }),
  su('backups upload json', 'POST', '/api/backups/upload', { body: { file: 'x' } }),
  guest('backups upload guest', 'POST', '/api/backups/upload', {
    form: { file: zip('guest.zip') },
  }),
  user('backups upload user', 'POST', '/api/backups/upload', { form: { file: zip('user.zip') } }),
  su('backups list after upload', 'GET', '/api/backups'),
  guest('backup download no token', 'GET', '/api/backups/upload.zip'),
  guest('backup download junk token', 'GET', '/api/backups/upload.zip?token=junk'),
  guest('backup download file token', 'GET', '/api/backups/upload.zip?token={{ftok}}'),
  guest('backup download user file token', 'GET', '/api/backups/upload.zip?token={{uftok}}'),
  su('backup download bearer only', 'GET', '/api/backups/upload.zip'),
  guest('backup download missing', 'GET', '/api/backups/nope.zip?token={{ftok}}'),
  guest('backup download traversal', 'GET', '/api/backups/..%2Fdata.db?token={{ftok}}'),
  su('backups storage-info', 'GET', '/api/backups/storage-info'),
  su('backup create named', 'POST', '/api/backups', { body: { name: 'good_1.zip' } }),
  su('backup create duplicate', 'POST', '/api/backups', { body: { name: 'good_1.zip' } }),
  su('backup create duplicate of upload', 'POST', '/api/backups', {
    body: { name: 'upload.zip' },
  }),
  ...(
    [
      ['space', 'bad name.zip'],
      ['upper', 'Upper.zip'],
      ['tar', 'x.tar'],
      ['no extension', 'backup'],
      ['traversal', '../evil.zip'],
      ['slash', 'a/b.zip'],
      ['long', `${'a'.repeat(200)}.zip`],
    ] as const
  ).map(([what, name]): Step =>
    su(`backup create ${what}`, 'POST', '/api/backups', { body: { name } }),
  ),
  su('backup create number name', 'POST', '/api/backups', { body: { name: 5 } }),
  su('backup create malformed', 'POST', '/api/backups', { raw: '{bad', headers: json }),
  guest('backup create guest', 'POST', '/api/backups', { body: { name: 'g.zip' } }),
  user('backup create user', 'POST', '/api/backups', { body: { name: 'u.zip' } }),
  su('backup create second', 'POST', '/api/backups', { body: { name: 'z-second.zip' } }),
  su('backups list keys', 'GET', '/api/backups?fields=key'),
  su('health after backups', 'GET', '/api/health'),
  su('backup restore missing', 'POST', '/api/backups/nope.zip/restore'),
  guest('backup restore guest', 'POST', '/api/backups/upload.zip/restore'),
  user('backup restore user', 'POST', '/api/backups/upload.zip/restore'),
  guest('backup delete guest', 'DELETE', '/api/backups/upload.zip'),
  user('backup delete user', 'DELETE', '/api/backups/upload.zip'),
  su('backup delete upload', 'DELETE', '/api/backups/upload.zip'),
  su('backup delete created', 'DELETE', '/api/backups/z-second.zip'),
  su('backups list keys after delete', 'GET', '/api/backups?fields=key'),
  su('backup download deleted', 'GET', '/api/backups/upload.zip?token={{ftok}}'),
  su('backups put', 'PUT', '/api/backups', { body: {} }),
  su('backups patch', 'PATCH', '/api/backups', { body: {} }),
]

const health: Step[] = [
  guest('health get guest', 'GET', '/api/health'),
  su('health get superuser', 'GET', '/api/health'),
  user('health get user', 'GET', '/api/health'),
  guest('health head', 'HEAD', '/api/health'),
  guest('health options', 'OPTIONS', '/api/health'),
  guest('health preflight', 'OPTIONS', '/api/health', {
    headers: { origin: 'http://example.org', 'access-control-request-method': 'POST' },
  }),
  guest('health put', 'PUT', '/api/health'),
  guest('health post', 'POST', '/api/health', { body: {} }),
  guest('health patch', 'PATCH', '/api/health', { body: {} }),
  guest('health delete', 'DELETE', '/api/health'),
  guest('health query junk', 'GET', '/api/health?x=%00&y[]=1&&=&fields='),
  guest('health fields', 'GET', '/api/health?fields=message'),
  guest('health trailing slash', 'GET', '/api/health/'),
  guest('health upper case', 'GET', '/api/Health'),
  guest('health double slash', 'GET', '/api//health'),
  guest('health junk token', 'GET', '/api/health', { headers: { authorization: 'junk' } }),
  su('health proxy header untrusted', 'GET', '/api/health', {
    headers: { 'x-forwarded-for': '1.2.3.4' },
  }),
  patch('health trust proxy', {
    trustedProxy: { headers: ['X-Forwarded-For'], useLeftmostIP: true },
  }),
  su('health proxy header trusted', 'GET', '/api/health', {
    headers: { 'x-forwarded-for': '1.2.3.4, 5.6.7.8' },
  }),
  patch('health trust proxy rightmost', { trustedProxy: { useLeftmostIP: false } }),
  su('health proxy header rightmost', 'GET', '/api/health', {
    headers: { 'x-forwarded-for': '1.2.3.4, 5.6.7.8' },
  }),
  patch('health trust proxy reset', { trustedProxy: { headers: [], useLeftmostIP: false } }),
]

/** POST /api/sql as PocketBase 0.40.4 has it; `fields` drops `execTime`, a duration. */
const SQL = '/api/sql?fields=affectedRows,columns,rows'
const sql = (name: string, query: unknown): Step =>
  su(`sql ${name}`, 'POST', SQL, { body: { query } })
const sqlSteps: Step[] = [
  su('sql select 1 whole answer', 'POST', '/api/sql', { body: { query: 'select 1 as a' } }),
  sql('select literals', "select 1 as n, 1.5 as f, null as z, x'41' as b, 't' as s"),
  sql('create table', 'create table tmp_x (id integer primary key, v text not null)'),
  sql('insert two', "insert into tmp_x (v) values ('a'), ('b')"),
  sql('select table', 'select * from tmp_x order by id'),
  sql('update all', "update tmp_x set v = 'c'"),
  sql('select after update', 'select id, v from tmp_x order by id'),
  sql('not null violation', 'insert into tmp_x (v) values (null)'),
  sql('delete one', 'delete from tmp_x where id = 1'),
  sql('drop table', 'drop table tmp_x'),
  sql('select records', 'select id, title from notes order by id'),
  sql('count superusers', 'select count(*) as c from _superusers'),
  sql(
    'recursive cte',
    'with r(x) as (select 1 union all select x + 1 from r where x < 3) select x from r',
  ),
  sql('two statements', 'select 1; select 2'),
  sql('syntax error', 'bad sql'),
  sql('no such table', 'select * from nope_table'),
  sql('blank', '   '),
  sql('empty', ''),
  sql('number', 5),
  su('sql no query', 'POST', SQL, { body: {} }),
  su('sql console shape', 'POST', SQL, { body: { sql: 'select 1 as a' } }),
  su('sql console shape write', 'POST', SQL, { body: { sql: 'select 1 as a', write: true } }),
  su('sql malformed', 'POST', SQL, { raw: '{bad', headers: json }),
  su('sql text/plain', 'POST', SQL, {
    raw: '{"query":"select 1"}',
    headers: { 'content-type': 'text/plain' },
  }),
  guest('sql guest', 'POST', SQL, { body: { query: 'select 1' } }),
  user('sql user', 'POST', SQL, { body: { query: 'select 1' } }),
  su('sql get', 'GET', '/api/sql'),
]

const long = 'a'.repeat(300)
const errors: Step[] = [
  // malformed bodies and content types
  su('collections create malformed', 'POST', '/api/collections', { raw: '{bad', headers: json }),
  su('collections create empty body', 'POST', '/api/collections'),
  su('collections create array body', 'POST', '/api/collections', { raw: '[]', headers: json }),
  guest('record create malformed', 'POST', '/api/collections/notes/records', {
    raw: '{bad',
    headers: json,
  }),
  guest('record create trailing junk', 'POST', '/api/collections/notes/records', {
    raw: '{"id":"nte000000000007","title":"x"} junk',
    headers: json,
  }),
  guest(
    'record delete trailing junk one',
    'DELETE',
    '/api/collections/notes/records/nte000000000007',
  ),
  guest('record create text/plain', 'POST', '/api/collections/notes/records', {
    raw: '{"title":"x"}',
    headers: { 'content-type': 'text/plain' },
  }),
  guest('record create xml', 'POST', '/api/collections/notes/records', {
    raw: '<a/>',
    headers: { 'content-type': 'application/xml' },
  }),
  guest('record create urlencoded', 'POST', '/api/collections/notes/records', {
    raw: 'title=form&id=nte000000000009',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  }),
  guest('record create json no content-type', 'POST', '/api/collections/notes/records', {
    raw: '{"id":"nte000000000008","title":"typeless"}',
  }),
  guest('record update malformed', 'PATCH', `/api/collections/notes/records/${NOTE}`, {
    raw: '{"title":',
    headers: json,
  }),
  guest('record update array body', 'PATCH', `/api/collections/notes/records/${NOTE}`, {
    raw: '["x"]',
    headers: json,
  }),
  guest('batch malformed', 'POST', '/api/batch', { raw: '{bad', headers: json }),
  guest('auth malformed', 'POST', '/api/collections/users/auth-with-password', {
    raw: '{bad',
    headers: json,
  }),
  guest('auth text/plain', 'POST', '/api/collections/users/auth-with-password', {
    raw: '{"identity":"u1@example.com","password":"password123"}',
    headers: { 'content-type': 'text/plain' },
  }),
  guest(
    'records list after body errors',
    'GET',
    '/api/collections/notes/records?sort=id&fields=id,title',
  ),
  // unknown routes and wrong methods
  guest('unknown api get', 'GET', '/api/nope'),
  guest('unknown api post', 'POST', '/api/nope', { body: {} }),
  guest('unknown api delete', 'DELETE', '/api/nope'),
  guest('unknown api patch', 'PATCH', '/api/nope/deeper/path', { body: {} }),
  su('unknown api get superuser', 'GET', '/api/nope'),
  guest('api root', 'GET', '/api/'),
  guest('api no slash', 'GET', '/api'),
  guest('root unknown', 'GET', '/nope'),
  guest('unknown collections action', 'GET', '/api/collections/notes/nope'),
  su('collections put', 'PUT', '/api/collections', { body: {} }),
  su('settings put', 'PUT', '/api/settings', { body: {} }),
  su('settings delete', 'DELETE', '/api/settings'),
  su('settings post', 'POST', '/api/settings', { body: {} }),
  su('settings test get', 'GET', '/api/settings/test/email'),
  su('settings test unknown', 'POST', '/api/settings/test/nope', { body: {} }),
  guest('record put', 'PUT', `/api/collections/notes/records/${NOTE}`, { body: {} }),
  guest('records delete list', 'DELETE', '/api/collections/notes/records'),
  guest('realtime put', 'PUT', '/api/realtime', { body: {} }),
  guest('batch get', 'GET', '/api/batch'),
  // long ids and names
  guest('record view long id', 'GET', `/api/collections/notes/records/${long}`),
  guest('record update long id', 'PATCH', `/api/collections/notes/records/${long}`, {
    body: { title: 'x' },
  }),
  guest('record delete long id', 'DELETE', `/api/collections/notes/records/${long}`),
  guest('record create long id', 'POST', '/api/collections/notes/records', {
    body: { id: long, title: 'x' },
  }),
  guest('records list long collection', 'GET', `/api/collections/${long}/records`),
  su('collection view long name', 'GET', `/api/collections/${long}`),
  guest('file long names', 'GET', `/api/files/notes/${long}/${long}.png`),
  // path traversal
  guest('traversal collection encoded', 'GET', '/api/collections/..%2F..%2Fetc/records'),
  guest('traversal collection dots', 'GET', '/api/collections/%2E%2E/records'),
  guest('traversal file name', 'GET', `/api/files/notes/${NOTE}/..%2F..%2Fdata.db`),
  guest('traversal file record', 'GET', '/api/files/notes/..%2F..%2F/data.db'),
  guest('traversal file collection', 'GET', `/api/files/..%2Fpb_data/${NOTE}/data.db`),
  guest('traversal file backslash', 'GET', `/api/files/notes/${NOTE}/..%5C..%5Cdata.db`),
  guest('traversal record id', 'GET', '/api/collections/notes/records/..%2F..%2Fsettings'),
  su('traversal collection view', 'GET', '/api/collections/..%2Fnotes'),
  guest('null byte in id', 'GET', '/api/collections/notes/records/nte%00'),
  guest('unicode collection', 'GET', `/api/collections/${q('nötes')}/records`),
  // query strings with junk
  guest('query page junk', 'GET', '/api/collections/notes/records?page=abc&perPage=xyz'),
  guest(
    'query perPage negative',
    'GET',
    '/api/collections/notes/records?perPage=-5&sort=id&fields=id',
  ),
  guest('query sort null byte', 'GET', '/api/collections/notes/records?sort=%00'),
  guest('query filter quote', 'GET', `/api/collections/notes/records?filter=${q("'")}`),
  guest('query filter junk', 'GET', `/api/collections/notes/records?filter=${q('))((')}`),
  guest(
    'query expand junk',
    'GET',
    '/api/collections/notes/records?expand=%2F%2F&sort=id&fields=id',
  ),
  guest('query fields junk', 'GET', '/api/collections/notes/records?fields=%2A%2A&sort=id'),
  guest(
    'query repeated params',
    'GET',
    '/api/collections/notes/records?sort=id&sort=-id&fields=id',
  ),
  guest('query bad percent', 'GET', '/api/collections/notes/records?filter=%ZZ&sort=id&fields=id'),
  guest(
    'query skipTotal junk',
    'GET',
    '/api/collections/notes/records?skipTotal=maybe&sort=id&fields=id',
  ),
]

/** Last: the auto-backup job run now (it runs in the background), and superuser IP lists. */
const last: Step[] = [
  patch('final backups cron set', { backups: { cron: '0 3 * * *' } }),
  su('final cron run auto backup', 'POST', '/api/crons/__pbAutoBackup__'),
  patch('final superuserIPs loopback', { superuserIPs: ['127.0.0.1', '::1', '10.0.0.0/8'] }),
  su('final settings get with superuserIPs', 'GET', '/api/settings?fields=superuserIPs'),
  patch('final superuserIPs reset', { superuserIPs: [] }),
]

export const admin: Group = {
  name: 'admin',
  steps: [
    ...setup,
    ...settingsRead,
    ...settingsWrites,
    ...settingsTests,
    ...logs,
    ...crons,
    ...backups,
    ...health,
    ...sqlSteps,
    ...errors,
    ...last,
  ],
}
