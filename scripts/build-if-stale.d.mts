// Types of build-if-stale.mjs (a plain script: it runs before anything is compiled).
export declare function inputsHash(root?: string): string;
export declare function buildIfStale(options?: { root?: string; log?: (message: string) => void }): Promise<boolean>;
