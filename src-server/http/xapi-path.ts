/**
 * The xAPI part of a URL: `/<slug>/xapi/...` or the earlier `/xapi/...`, with "xapi" in any case
 * (docs/design.md, "Addresses"). One pattern, so that URL normalisation and the alternate request
 * syntax agree on what an xAPI path is.
 */
const XAPI_PREFIX = /^(\/[^/?]+)?\/xapi(?=\/|\?|$)/i;

/** The resources every Store serves under `{base}/<slug>/xAPI/`, for the 404 that lists them. */
export const XAPI_RESOURCES = ['statements', 'activities', 'activities/state', 'activities/profile', 'agents', 'agents/profile', 'about'] as const;

/** `/demo/XaPi/statements` → `/demo/xapi/statements`; `/XAPI/about` → `/xapi/about`. */
export function normaliseXapiSegment(url: string): string {
  return url.replace(XAPI_PREFIX, (_match, slug: string | undefined) => `${slug ?? ''}/xapi`);
}

/**
 * What every request's URL is routed on. Authoring tools join the endpoint the user typed with
 * `statements` themselves, so `/demo/xAPI//statements` and `/demo//xAPI/statements` are common:
 * a run of slashes in the path counts as one (the query string, which carries statement ids and
 * `more` tokens, is left as it is). Answered in place, never redirected: a redirected CORS
 * preflight fails in every browser. A trailing slash is ignored by the router itself.
 */
export function normaliseRequestUrl(url: string): string {
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  const collapsed = path.includes('//') ? path.replace(/\/{2,}/g, '/') : path;
  return normaliseXapiSegment(query < 0 ? collapsed : collapsed + url.slice(query));
}

export function isXapiPath(url: string): boolean {
  return XAPI_PREFIX.test(url);
}

/** The Store slug of an xAPI path (`/demo/xapi/...` → `demo`), or null for `/xapi/...` and other paths. */
export function xapiStoreSlug(url: string): string | null {
  const match = XAPI_PREFIX.exec(url);
  if (!match?.[1]) return null;
  try {
    return decodeURIComponent(match[1].slice(1));
  } catch {
    return match[1].slice(1);
  }
}

/** The path part of the public URL (`https://host/lrs/` → `/lrs`), which every URL the service builds keeps. */
export function publicPathPrefix(publicUrl: string): string {
  try {
    return new URL(publicUrl).pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}
