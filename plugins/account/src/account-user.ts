// Its own file so that the feature option files (two-factor's `required`) name it without importing options.ts back.

/** A user row as the plugin hands it out: every column except the password hash. */
export type AccountUser = Record<string, unknown> & { id: string | number };
