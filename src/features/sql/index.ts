import type { Feature } from '../../http/feature.js'
import { registerRoutes } from './routes/sql.js'
import { SqlConsole, type SqlConsoleOptions } from './service.js'

export {
  SQL_MAX_BYTES,
  SQL_MAX_ROWS,
  SQL_MAX_RUNNING,
  SQL_TIMEOUT_MS,
  type SqlConsoleOptions,
} from './service.js'

/**
 * The SQL console (SPEC §4.14, `POST /api/sql`, superuser): reads on a read-only connection cut
 * at 500 rows, writes serialised with the app's transactions, every statement on a connection
 * of its own that is killed at 10 s (`Store.console`); driver errors verbatim in a 400.
 */
export function sqlFeature(options: SqlConsoleOptions = {}): Feature {
  return {
    name: 'sql',
    register: ({ app, http }) => {
      registerRoutes(http, new SqlConsole(app, options))
    },
  }
}
