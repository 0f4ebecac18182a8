/**
 * The `event` suite: the members of PocketBase's route event (`router.Event`), realtime connect
 * event and `Collection` the other suites do not exercise — `e.bindBody`, `e.findUploadedFiles`,
 * `e.request.formFile` with `$filesystem.fileFromMultipart`, `e.isTLS`, `e.setCookie` with
 * `Cookie`, `e.status`, `e.written`, `e.xml`, `e.flush`, `e.stream`, `e.fileFS` with `$os.dirFS`;
 * `e.idleTimeout`/`e.maxTimeout`; `baseFilesPath`, `dbExport`, `integrityChecks`, `postScan`.
 */
import type { MultipartCase, MultipartPart } from './ask.js'
import { SU, type HookSuite } from './cases.js'

const c = (
  name: string,
  method: MultipartCase['method'],
  path: string,
  extra: Partial<MultipartCase> = {},
) => ({ name, method, path, ...extra }) satisfies MultipartCase

const doc = (filename: string, content: string, name = 'doc'): MultipartPart => ({
  name,
  file: { filename, content, type: 'text/plain' },
})

export const eventSuite: HookSuite = {
  name: 'event',
  files: [
    'event-members.pb.js',
    'event-files/hello.txt',
    'event-files/data.json',
    'event-files/sub/index.html',
  ],
  cases: [
    c('make evdocs', 'POST', '/api/collections', {
      auth: SU,
      send: {
        id: 'pbc_evdocs00001',
        name: 'evdocs',
        type: 'base',
        listRule: '',
        viewRule: '',
        fields: [
          { name: 'title', type: 'text' },
          { name: 'file', type: 'file', maxSelect: 1, maxSize: 1000000 },
          { name: 'data', type: 'json' },
        ],
        indexes: ['CREATE INDEX `idx_evdocs_title` ON `evdocs` (`title`)'],
      },
      keep: ['name'],
    }),
    c('make evview', 'POST', '/api/collections', {
      auth: SU,
      send: { name: 'evview', type: 'view', viewQuery: 'SELECT id, title FROM evdocs' },
      keep: ['name'],
    }),
    c('bindBody from JSON', 'POST', '/ev/bind', {
      send: { title: 't', total: 3, flag: true, list: [1, 'x'], obj: { y: 1 }, other: 'ignored' },
    }),
    c('bindBody from a urlencoded form', 'POST', '/ev/bind', {
      form: { title: 'u', total: '7', flag: 'true', other: '1' },
    }),
    c('bindBody from a multipart form', 'POST', '/ev/bind', {
      multipart: [
        { name: 'title', value: 'm' },
        { name: 'total', value: '9' },
      ],
    }),
    c('bindBody errors', 'POST', '/ev/bind-errors', { send: { title: 5 } }),
    c('bindBody of a text body', 'POST', '/ev/bind-text', {
      headers: { 'content-type': 'text/plain' },
    }),
    c('findUploadedFiles', 'POST', '/ev/files', {
      multipart: [doc('a.txt', 'hello'), doc('b.txt', 'hello world'), { name: 'x', value: '1' }],
    }),
    c('findUploadedFiles of a missing key', 'POST', '/ev/files-missing', {
      multipart: [doc('a.txt', 'hello')],
    }),
    c('findUploadedFiles of a JSON request', 'POST', '/ev/files-missing', { send: { a: 1 } }),
    c('request.formFile and fileFromMultipart', 'POST', '/ev/formfile', {
      multipart: [doc('c.txt', 'abc'), doc('d.txt', 'defg')],
    }),
    c('request.formFile of a missing key', 'POST', '/ev/formfile-missing', {
      multipart: [{ name: 'x', value: '1' }],
    }),
    c('an uploaded file saved in a record', 'POST', '/ev/save-upload', {
      multipart: [doc('saved.txt', 'stored content')],
    }),
    c('the saved record', 'GET', '/api/collections/evdocs/records?filter=title%3D%27uploaded%27', {
      keep: ['totalItems', 'items.0.title'],
    }),
    c('status, written and isTLS', 'GET', '/ev/state'),
    c('status, written and isTLS read', 'GET', '/ev/state/read'),
    c('setCookie', 'GET', '/ev/cookie', { cookies: true }),
    c('xml of a string', 'GET', '/ev/xml/string'),
    c('xml of a number', 'GET', '/ev/xml/number'),
    c('xml of a bool', 'GET', '/ev/xml/bool'),
    c('flush after the answer', 'GET', '/ev/flush'),
    c('stream a file reader', 'GET', '/ev/stream'),
    c('stream an uploaded file', 'POST', '/ev/stream-upload', {
      multipart: [doc('s.txt', 'streamed upload')],
    }),
    c('fileFS a text file', 'GET', '/ev/filefs?f=hello.txt'),
    c('fileFS a JSON file', 'GET', '/ev/filefs?f=data.json'),
    c('fileFS a folder with an index', 'GET', '/ev/filefs?f=sub'),
    c('fileFS a missing file', 'GET', '/ev/filefs?f=nope.txt'),
    c('fileFS outside the folder', 'GET', '/ev/filefs?f=../event-members.pb.js'),
    c('fileFS an empty name', 'GET', '/ev/filefs?f='),
    c('realtime connect timeouts, read and set', 'GET', '/api/realtime'),
    c('xml of null', 'GET', '/ev/xml/null'),
    c('xml of a fraction', 'GET', '/ev/xml/float'),
    c('stream of a text, not a reader', 'GET', '/ev/bad/stream'),
    c('fileFS of a path, not a dirFS', 'GET', '/ev/bad/filefs'),
    c('fileFS of a missing folder', 'GET', '/ev/bad/dirfs'),
    c('setCookie of null', 'GET', '/ev/bad/cookie-null', { cookies: true }),
    c('setCookie of a text', 'GET', '/ev/bad/cookie-text', { cookies: true }),
    c('bindBody of a text body, uncaught', 'POST', '/ev/bad/bind', {
      text: 'hello',
    }),
    c('request members', 'POST', '/ev/request?q=1&q=2', {
      headers: {
        cookie: 'a=b; c=d',
        'user-agent': 'probe/1.0',
        referer: 'https://ref.example/x',
        authorization: 'Basic ' + Buffer.from('ann:s3cret').toString('base64'),
        'x-multi': 'one',
      },
      send: {},
    }),
    c('collection members', 'GET', '/ev/collection'),
    c('a view collection dbExport', 'GET', '/ev/collection-view'),
  ],
}
