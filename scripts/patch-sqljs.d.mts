// Types of patch-sqljs.mjs (a plain script: it runs at install, before anything is compiled).
export declare const REPLACEMENTS: ReadonlyArray<{ what: string; from: string; to: string }>;
export declare function patchSqlJsSource(source: string): { source: string; changed: boolean };
export declare const PRISTINE_SHA256: string;
export declare function unpatched(source: string): string;
export declare function assertKnownSqlJs(source: string, version: string): void;
