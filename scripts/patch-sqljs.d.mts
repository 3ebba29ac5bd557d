// Types of patch-sqljs.mjs (a plain script: it runs at install, before anything is compiled).
export declare const REPLACEMENTS: ReadonlyArray<{ what: string; from: string; to: string }>;
export declare function patchSqlJsSource(source: string): { source: string; changed: boolean };
