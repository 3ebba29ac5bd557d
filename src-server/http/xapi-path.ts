/**
 * The xAPI part of a URL: `/<slug>/xapi/...` or the earlier `/xapi/...`, with "xapi" in any case
 * (DESIGN.md). One pattern, so that URL normalisation and the alternate request syntax agree on
 * what an xAPI path is.
 */
const XAPI_PREFIX = /^(\/[^/?]+)?\/xapi(?=\/|\?|$)/i;

/** `/demo/XaPi/statements` → `/demo/xapi/statements`; `/XAPI/about` → `/xapi/about`. */
export function normaliseXapiSegment(url: string): string {
  return url.replace(XAPI_PREFIX, (_match, slug: string | undefined) => `${slug ?? ''}/xapi`);
}

export function isXapiPath(url: string): boolean {
  return XAPI_PREFIX.test(url);
}
