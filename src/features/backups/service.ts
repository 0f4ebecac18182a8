import { createWriteStream } from 'node:fs'
import { mkdir, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import type { App } from '../../core/app.js'
import type { RequestInfo } from '../../core/request-info.js'
import { badRequest, messages, validationError } from '../../core/errors.js'
import { s3ConfigOf, StorageSwitch } from '../../core/storage.js'
import { formatDate } from '../../tools/dates.js'
import { SnapshotEngineMismatch } from '../../store/snapshot-engines.js'
import type { ByteRange, FileInfo, ReadResult } from '../../tools/filesystem/index.js'
import {
  ArchiveError,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_ENTRIES,
  extractArchive,
  inspectArchive,
  writeArchive,
  type ArchiveLimits,
} from './archive.js'
import { swapData } from './swap.js'
import { freshTempDir, removeStaleTemp, TMP_DIR } from './temp.js'
export { TMP_DIR } from './temp.js'
import { AUTO_PREFIX, autoName, isValidKey } from './names.js'
import { aroundArchive, aroundCreate, askedName } from './hooks.js'
import { checkUpload, notAnArchive, type UploadedFile } from './upload.js'
import { withDiskRoom } from './disk-room.js'
import { backupsMessages } from './messages.js'

/** The id of the automatic backup job on `app.cron` (present while `backups.cron` is set). */
export const AUTO_JOB_ID = '__svcAutoBackup__'
/** The folder of local backups inside the data directory. */
export const BACKUPS_DIR = 'backups'
/** The largest archive accepted by `POST /api/backups/upload` by default. */
export const DEFAULT_MAX_UPLOAD_BYTES = 64 * 1024 ** 3

/** Options of the backups feature (the archive limits, mostly for tests). */
export interface BackupsOptions {
  /** The most entries an archive read back may have (default 200 000). */
  maxEntries?: number
  /**
   * The most bytes an archive may unpack to (default 64 GiB, lowered to the free disk space less
   * a headroom: {@link diskHeadroom}).
   */
  maxBytes?: number
  /** The largest upload (default 64 GiB). */
  maxUploadBytes?: number
}

/** One archive in the list: `GET /api/backups`. */
export interface BackupItem {
  key: string
  size: number
  modified: string
}

/** What `GET /api/backups/storage-info` answers. */
export interface StorageInfo {
  driver: 'local' | 's3'
  bucket?: string
  prefix?: string
}

/**
 * The backups of one app (`app.services.get('backups')`): archives in `<dataDir>/backups/` or
 * on S3 per `settings.backups.s3`, one backup or restore at a time, the automatic job.
 */
export class BackupsService {
  /** The backups store: local folder or S3, following `settings.backups.s3` live. */
  readonly fs: StorageSwitch
  private running: 'backup' | 'restore' | null = null
  /** Keys being read (downloads, restores), with how many readers each. */
  private readonly readers = new Map<string, number>()
  private autoExpression = ''

  constructor(
    private readonly app: App,
    private readonly options: BackupsOptions = {},
  ) {
    this.fs = new StorageSwitch(() => app.settings.get().backups.s3, this.localRoot)
  }

  private get dataDir(): string {
    return this.app.config.dataDir
  }

  private get localRoot(): string {
    return join(this.dataDir, BACKUPS_DIR)
  }

  /**
   * True when a backup can be taken now: the app runs, no backup or restore is going, and the
   * backups store is usable (S3 enabled needs a bucket).
   */
  get canBackup(): boolean {
    if (this.running !== null || !this.app.isBootstrapped) return false
    const s3 = s3ConfigOf(this.app.settings.get().backups.s3)
    return !s3.enabled || s3.bucket !== ''
  }

  /** Takes the one backup/restore slot, or answers 400 while it is taken. */
  private acquire(kind: 'backup' | 'restore'): void {
    if (this.running !== null) throw badRequest(backupsMessages.backupBusy)
    this.running = kind
  }

  private hold(key: string): () => void {
    this.readers.set(key, (this.readers.get(key) ?? 0) + 1)
    let released = false
    return () => {
      if (released) return
      released = true
      const n = (this.readers.get(key) ?? 1) - 1
      if (n <= 0) this.readers.delete(key)
      else this.readers.set(key, n)
    }
  }

  /** A fresh folder under `<dataDir>/.svc_tmp/`. */
  private tempDir(label: string): Promise<string> {
    return freshTempDir(this.dataDir, label)
  }

  /** Removes what a crash left in `<dataDir>/.svc_tmp/` (folders older than an hour). */
  removeStaleTemp(now = Date.now()): Promise<void> {
    return removeStaleTemp(this.dataDir, now)
  }

  /** The limits of an archive read back: the options', within the disk's room (`withDiskRoom`). */
  private async limits(): Promise<ArchiveLimits> {
    const limits: ArchiveLimits = {
      maxEntries: this.options.maxEntries ?? DEFAULT_MAX_ENTRIES,
      maxBytes: this.options.maxBytes ?? DEFAULT_MAX_BYTES,
    }
    return withDiskRoom(this.dataDir, limits)
  }

  /** Where backups go: `{driver: "local"}` or `{driver: "s3", bucket}`. */
  storageInfo(): StorageInfo {
    const s3 = s3ConfigOf(this.app.settings.get().backups.s3)
    return s3.enabled ? { driver: 's3', bucket: s3.bucket, prefix: '' } : { driver: 'local' }
  }

  /** The archives, newest first. */
  async list(): Promise<BackupItem[]> {
    let files
    try {
      files = (await this.fs.list('')).files
    } catch (err) {
      throw badRequest(backupsMessages.backupsFilesystemFailed, {}, err)
    }
    return files
      .filter((f) => isValidKey(f.key))
      .sort(
        (a, b) => b.lastModified.getTime() - a.lastModified.getTime() || (a.key < b.key ? 1 : -1),
      )
      .map((f) => ({ key: f.key, size: f.size, modified: formatDate(f.lastModified) }))
  }

  private async exists(key: string): Promise<boolean> {
    try {
      return (await this.fs.stat(key)) !== null
    } catch (err) {
      throw badRequest(backupsMessages.backupsFilesystemFailed, {}, err)
    }
  }

  /**
   * Takes a backup now: snapshots of the databases (writers keep going), the local storage tree
   * when files are not on S3, written into one ZIP and stored under `name` (client names are
   * checked; the default is `svc_backup_<timestamp>.zip`), inside `onBackupCreate` (hooks.ts).
   * Resolves to the key, or `""` when a handler stopped it.
   */
  async create(name?: unknown, auto = false, info: RequestInfo | null = null): Promise<string> {
    const asked = auto ? autoName() : askedName(name)
    return aroundCreate(this.app, asked, info, (key) => this.write(key))
  }

  /** Makes archive `key` (the action of `onBackupCreate`). */
  private async write(key: string): Promise<string> {
    this.acquire('backup')
    let work: string | null = null
    try {
      if (await this.exists(key))
        throw badRequest(messages.validationFailed, {
          name: validationError('validation_backup_name_exists'),
        })
      work = await this.tempDir('backup')
      const snapshots = join(work, 'db')
      await mkdir(snapshots)
      const archive = join(work, 'archive.zip')
      try {
        const databases = await this.app.store.backup(snapshots)
        const withFiles = !s3ConfigOf(this.app.settings.get().s3).enabled
        const size = await writeArchive(
          archive,
          databases,
          withFiles ? join(this.dataDir, 'storage') : null,
        )
        const moved =
          this.fs.kind === 'local' &&
          (await mkdir(this.localRoot, { recursive: true })
            .then(() => rename(archive, join(this.localRoot, key)))
            .then(
              () => true,
              // NB: `backups/` on another file system (a link to another disk): copy instead.
              (err: NodeJS.ErrnoException) => {
                if (err.code === 'EXDEV') return false
                throw err
              },
            ))
        if (!moved) {
          await this.fs.writeFile(key, archive, { contentType: 'application/zip', size })
        }
      } catch (err) {
        this.app.logger.error('backup failed', { key, error: String(err) })
        throw badRequest(backupsMessages.backupCreateFailed, {}, err)
      }
      return key
    } finally {
      this.running = null
      if (work) await rm(work, { recursive: true, force: true }).catch(() => undefined)
    }
  }

  /**
   * Keeps an uploaded archive (`file` spooled to `path`) under its own name, once its name is
   * valid and free and its central directory passes the archive checks; every refusal is a field
   * error at `data.file`, as PocketBase's (`upload.ts`).
   */
  async upload(upload: UploadedFile | undefined): Promise<void> {
    const file = await checkUpload(upload, (name) => this.exists(name))
    try {
      await inspectArchive(file.path, await this.limits())
    } catch (err) {
      if (err instanceof ArchiveError) throw notAnArchive(err)
      throw err
    }
    try {
      await this.fs.writeFile(file.filename, file.path, {
        contentType: 'application/zip',
        size: file.size,
      })
    } catch (err) {
      throw badRequest(backupsMessages.backupUploadFailed, {}, err)
    }
  }

  /** Metadata of an archive, or null when there is none under `key`. */
  async stat(key: string): Promise<FileInfo | null> {
    if (!isValidKey(key)) return null
    try {
      return await this.fs.stat(key)
    } catch (err) {
      throw badRequest(backupsMessages.backupsFilesystemFailed, {}, err)
    }
  }

  /** Opens an archive (or one range of it) for download; in use until the stream closes. */
  async read(key: string, range?: ByteRange): Promise<ReadResult | null> {
    if (!isValidKey(key)) return null
    const release = this.hold(key)
    try {
      const result = await this.fs.read(key, range)
      if (!result) release()
      else result.stream.once('close', release)
      return result
    } catch (err) {
      release()
      throw badRequest(backupsMessages.backupsFilesystemFailed, {}, err)
    }
  }

  /** Deletes an archive (inside `onBackupDelete`): 400 when missing or being read or restored. */
  async delete(key: string, info: RequestInfo | null = null): Promise<void> {
    if (!isValidKey(key) || !(await this.exists(key)))
      throw badRequest(backupsMessages.backupDeleteMissing)
    if (this.readers.has(key)) throw badRequest(backupsMessages.backupInUse)
    await aroundArchive(this.app, 'onBackupDelete', key, info, async () => {
      await this.fs.delete(key)
    })
  }

  /**
   * Validates the archive `key` for a restore before touching anything: it is fetched (from
   * S3) and extracted under `.svc_tmp/`, checked by `extractArchive` (zip-slip, kinds, limits,
   * sizes, CRC) and by the store (`checkSnapshot`: integrity, svcbase's own tables). Any
   * problem answers 400 with nothing changed. Resolves to the function that, called once the
   * 204 is sent, restarts the server in process with the extracted data swapped in.
   */
  async prepareRestore(key: string, info: RequestInfo | null = null): Promise<() => Promise<void>> {
    const restarter = this.app.services.find('restart')
    if (!restarter) throw badRequest(backupsMessages.backupRestoreUnavailable)
    if (!isValidKey(key)) throw badRequest(backupsMessages.backupMissing)
    this.acquire('restore')
    const release = this.hold(key)
    let work: string | null = null
    const cleanUp = async () => {
      release()
      this.running = null
      if (work) await rm(work, { recursive: true, force: true }).catch(() => undefined)
    }
    try {
      if (!(await this.exists(key))) throw badRequest(backupsMessages.backupMissing)
      work = await this.tempDir('restore')
      let zip = join(this.localRoot, key)
      if (this.fs.kind === 's3') {
        zip = join(work, 'archive.zip')
        const source = await this.fs.read(key)
        if (!source) throw badRequest(backupsMessages.backupMissing)
        await pipeline(source.stream, createWriteStream(zip))
      }
      const extracted = join(work, 'data')
      try {
        await extractArchive(zip, extracted, await this.limits())
        await this.app.store.checkSnapshot(join(extracted, 'db'))
      } catch (err) {
        if (err instanceof SnapshotEngineMismatch) {
          const engines = { archive: err.snapshotEngine, server: err.storeEngine }
          throw badRequest(backupsMessages.backupEngineMismatch(engines), {}, err)
        }
        const reason = err instanceof Error ? err.message : String(err)
        throw badRequest(backupsMessages.backupArchiveInvalid({ reason }), {}, err)
      }
      const dir = work
      return async () => {
        try {
          await aroundArchive(this.app, 'onBackupRestore', key, info, () =>
            restarter.restart(() =>
              swapData(this.app.store, this.dataDir, extracted, dir, [BACKUPS_DIR, TMP_DIR]),
            ),
          )
        } catch (err) {
          this.app.logger.error('restore failed; the data in place before it serves again', {
            key,
            error: String(err),
          })
        } finally {
          await cleanUp()
        }
      }
    } catch (err) {
      await cleanUp()
      throw err
    }
  }

  /** Adds, changes or removes the automatic job to follow `settings.backups.cron`. */
  syncAutoJob(): void {
    const expression = this.app.settings.get().backups.cron.trim()
    if (expression === this.autoExpression) return
    if (expression === '') this.app.cron.remove(AUTO_JOB_ID)
    else this.app.cron.add(AUTO_JOB_ID, expression, () => this.autoBackup())
    this.autoExpression = expression
  }

  /** Forgets the automatic job (the app stops). */
  stopAutoJob(): void {
    if (this.autoExpression !== '') this.app.cron.remove(AUTO_JOB_ID)
    this.autoExpression = ''
  }

  /**
   * The automatic job: a backup named `@auto_svc_backup_<timestamp>.zip`, then only the newest
   * `backups.cronMaxKeep` automatic archives are kept (archives named by clients are never
   * deleted by it).
   */
  async autoBackup(): Promise<void> {
    await this.create(undefined, true)
    await this.rotate()
  }

  /** Deletes the automatic archives beyond the newest `cronMaxKeep` (each in `onBackupDelete`). */
  async rotate(): Promise<string[]> {
    const removed: string[] = []
    const keep = Math.max(1, this.app.settings.get().backups.cronMaxKeep)
    const autos = (await this.list()).filter((b) => b.key.startsWith(AUTO_PREFIX))
    // Newest first by name too: the name holds the time, to the millisecond.
    autos.sort((a, b) => (a.key < b.key ? 1 : -1))
    for (const old of autos.slice(keep)) {
      if (this.readers.has(old.key)) continue
      await aroundArchive(this.app, 'onBackupDelete', old.key, null, async () => {
        await this.fs.delete(old.key)
      })
      removed.push(old.key)
    }
    return removed
  }

  /** Releases the S3 connection, if any. */
  async close(): Promise<void> {
    await this.fs.close()
  }
}
