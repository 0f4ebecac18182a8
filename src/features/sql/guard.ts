/**
 * What the SQL console refuses before any engine sees the text, on every engine (each is a
 * syntax or "no such function" error on the engines without it, so refusing it costs nothing):
 * constructs that reach outside the database (files, programs, other connections), that change
 * who the statement runs as or its session's safeguards, or that run SQL text built at run time
 * (which no check of the text could see). A superuser of the database must not get past the
 * console's rules through it. Words are matched in the whole text, string literals included: a
 * rare false refusal is the price of a check that quoting cannot fool.
 */
import { consoleHead as head } from '../../store/console.js'

export { head }

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
 * The name of the first construct of `text` the console refuses (see the module comment), or
 * null when there is none.
 */
export function refusedConstruct(text: string): string | null {
  const start = head(text)
  for (const [pattern, name] of STATEMENTS) if (pattern.test(start)) return name
  for (const [pattern, name] of WORDS) if (pattern.test(text)) return name
  return null
}
