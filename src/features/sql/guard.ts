/**
 * What the SQL console refuses before any engine sees the text, on every engine (each is a
 * syntax or "no such function" error on the engines without it, so refusing it costs nothing):
 * constructs that reach outside the database (files, programs, other connections), that change
 * who the statement runs as or its session's safeguards, or that run SQL text built at run time
 * (which no check of the text could see). A superuser of the database must not get past the
 * console's rules through it. Words are matched in the whole text, string literals included: a
 * rare false refusal is the price of a check that quoting cannot fool.
 */

/** Statements refused by their first words, with the name shown in the refusal. */
const STATEMENTS: ReadonlyArray<[RegExp, string]> = [
  [/^COPY\b/, 'COPY'],
  [/^(SET|RESET)\b/, 'SET/RESET'],
  [/^DO\b/, 'DO'],
  [/^LOAD\b/, 'LOAD'],
  [/^CALL\b/, 'CALL'],
  [/^(LISTEN|NOTIFY|UNLISTEN)\b/, 'LISTEN/NOTIFY'],
  [/^(PREPARE|EXECUTE|DEALLOCATE)\b/, 'PREPARE/EXECUTE'],
  [/^ALTER\s+SYSTEM\b/, 'ALTER SYSTEM'],
  [/^(CREATE|ALTER|DROP)\s+(ROLE|USER|GROUP|DATABASE|TABLESPACE)\b/, 'roles and databases'],
  [/^(GRANT|REVOKE)\b/, 'GRANT/REVOKE'],
  [/^SECURITY\s+LABEL\b/, 'SECURITY LABEL'],
  [/^CHECKPOINT\b/, 'CHECKPOINT'],
  [
    /^(CREATE|ALTER|DROP)\s+(OR\s+REPLACE\s+)?(TRUSTED\s+)?(PROCEDURAL\s+)?(FUNCTION|PROCEDURE|AGGREGATE|LANGUAGE|EXTENSION|EVENT\s+TRIGGER|RULE|FOREIGN|SERVER|SUBSCRIPTION|PUBLICATION|USER\s+MAPPING)\b/,
    'functions, procedures and extensions',
  ],
]

/** Words refused anywhere in the text (functions and clauses), with the name shown. */
const WORDS: ReadonlyArray<[RegExp, string]> = [
  [
    /\b(pg_read_file|pg_read_binary_file|pg_stat_file|pg_ls_\w+|pg_file_\w+|pg_logdir_ls|lo_import|lo_export)\b/i,
    'server files',
  ],
  // Other connections and other sessions.
  [/\b(dblink\w*|postgres_fdw)\b/i, 'dblink'],
  [
    /\b(pg_terminate_backend|pg_cancel_backend|pg_reload_conf|pg_rotate_logfile|pg_promote|pg_switch_wal|pg_backup_start|pg_backup_stop|pg_create_restore_point|pg_notify|pg_log_backend_memory_contexts)\b/i,
    'server administration functions',
  ],
  // The session's settings (session_replication_role, role) and SQL run from text.
  [/\b(set_config|session_replication_role)\b/i, 'settings'],
  [
    /\b(query_to_xml\w*|cursor_to_xml\w*|table_to_xml\w*|database_to_xml\w*|schema_to_xml\w*)\b/i,
    'SQL run from text',
  ],
  // Unicode-escaped names and strings could spell any word above.
  [/\bU&["']/i, 'Unicode escapes (U&)'],
]

/**
 * The text after leading blanks, comments and empty statements (`;`, which SQLite skips),
 * upper-cased (what the prefix checks look at).
 */
export function head(text: string): string {
  let s = text
  for (;;) {
    const next = s
      .replace(/^[\s;]+/, '')
      .replace(/^--[^\n]*(\n|$)/, '')
      .replace(/^\/\*[\s\S]*?\*\//, '')
    if (next === s) return s.toUpperCase()
    s = next
  }
}

/**
 * The name of the first construct of `text` the console refuses (see the module comment), or
 * null when there is none.
 */
export function refusedConstruct(text: string): string | null {
  const start = head(text)
  for (const [pattern, name] of STATEMENTS) if (pattern.test(start)) return name
  for (const [pattern, name] of WORDS) if (pattern.test(text)) return name
  return null
}

/**
 * SQLite's PRAGMAs the console runs (a statement; the `pragma_*` table-valued functions are
 * read-only by SQLite's own rule and stay allowed): an allow-list, since a PRAGMA can corrupt the
 * database (`writable_schema`, `schema_version`), change it for every connection (`journal_mode`,
 * `page_size`, `auto_vacuum`) or take it from the app (`locking_mode`, `wal_checkpoint`).
 * Introspection PRAGMAs that take an object name as their argument.
 */
const PRAGMAS_WITH_ARGUMENT = [
  'foreign_key_check',
  'foreign_key_list',
  'index_info',
  'index_list',
  'index_xinfo',
  'integrity_check',
  'quick_check',
  'table_info',
  'table_list',
  'table_xinfo',
]
/** PRAGMAs allowed as a plain query only (no argument, no `=`): reading a value changes nothing. */
const PRAGMAS_QUERY_ONLY = [
  'application_id',
  'auto_vacuum',
  'collation_list',
  'compile_options',
  'data_version',
  'encoding',
  'foreign_keys',
  'freelist_count',
  'function_list',
  'journal_mode',
  'module_list',
  'optimize',
  'page_count',
  'page_size',
  'pragma_list',
  'schema_version',
  'user_version',
]

/** The PRAGMAs the console allows, for the refusal's message. */
export const ALLOWED_PRAGMAS = `${PRAGMAS_WITH_ARGUMENT.map((p) => `${p}(…)`).join(', ')}, and without an argument or "=" ${PRAGMAS_QUERY_ONLY.join(', ')}`

/**
 * The PRAGMA statement `text` is, when the console refuses it (its name, or the text's start when
 * it is no plain `PRAGMA [schema.]name[(argument)]` query), or null when it is no PRAGMA or an
 * allowed one ({@link ALLOWED_PRAGMAS}). Any assignment (`PRAGMA x = …`) is refused.
 */
export function refusedPragma(text: string): string | null {
  const start = head(text)
  if (!/^PRAGMA\b/.test(start)) return null
  const m = /^PRAGMA\s+(?:(MAIN|TEMP)\s*\.\s*)?([A-Z_][A-Z0-9_]*)\s*([\s\S]*)$/.exec(start)
  if (!m) return start.slice(0, 60).trim()
  const name = m[2]!.toLowerCase()
  const rest = m[3]!
    .replace(/--[^\n]*(\n|$)/g, ' ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/[\s;]+$/, '')
  if (rest === '' && (PRAGMAS_QUERY_ONLY.includes(name) || PRAGMAS_WITH_ARGUMENT.includes(name)))
    return null
  if (/^\(\s*[^()=;]*\)$/.test(rest) && PRAGMAS_WITH_ARGUMENT.includes(name)) return null
  return name
}
