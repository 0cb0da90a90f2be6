/* SQLITE_TRANSIENT is a cast macro Swift does not import; these wrappers bind copies. */
#ifndef ODS_CSQLITE_SHIM_H
#define ODS_CSQLITE_SHIM_H
#include <sqlite3.h>

static inline int ods_sqlite3_bind_text_transient(sqlite3_stmt *s, int i, const char *v, int n) { return sqlite3_bind_text(s, i, v, n, SQLITE_TRANSIENT); }
static inline int ods_sqlite3_bind_blob_transient(sqlite3_stmt *s, int i, const void *v, int n) { return sqlite3_bind_blob(s, i, v, n, SQLITE_TRANSIENT); }
static inline int ods_sqlite3_db_config_int(sqlite3 *db, int op, int v, int *out) { return sqlite3_db_config(db, op, v, out); }
/* sqlite3_config is variadic, which Swift does not import. */
static inline int ods_sqlite3_config_memstatus(int on) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on); }
#endif
