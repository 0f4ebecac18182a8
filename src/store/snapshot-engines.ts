/**
 * Which engine wrote a snapshot folder: each store's backup files have their own names
 * (`data.db` for SQLite, `data.pgdump` for PostgreSQL), so a backup archive taken on one engine
 * is recognised, and refused with both engines named, by a store of the other.
 */

/** The main file of each engine's snapshot, and the engine's name for people. */
const mainFiles: ReadonlyArray<{ file: string; engine: string }> = [
  { file: 'data.db', engine: 'SQLite' },
  { file: 'data.pgdump', engine: 'PostgreSQL' },
]

/** A snapshot written by another engine than the store's. */
export class SnapshotEngineMismatch extends Error {
  constructor(
    readonly snapshotEngine: string,
    readonly storeEngine: string,
  ) {
    super(
      `it is a ${snapshotEngine} backup and this server runs on ${storeEngine}: ` +
        `a backup restores only into the engine it was taken on`,
    )
    this.name = 'SnapshotEngineMismatch'
  }
}

/** The engine whose main snapshot file is among `names`, or null. */
export function snapshotEngineOf(names: readonly string[]): string | null {
  return mainFiles.find((m) => names.includes(m.file))?.engine ?? null
}

/**
 * Throws `SnapshotEngineMismatch` when the files `names` of a snapshot folder were written by
 * another engine than `storeEngine` (`SQLite`, `PostgreSQL`).
 */
export function refuseOtherEngine(names: readonly string[], storeEngine: string): void {
  const engine = snapshotEngineOf(names)
  if (engine !== null && engine !== storeEngine) {
    throw new SnapshotEngineMismatch(engine, storeEngine)
  }
}
