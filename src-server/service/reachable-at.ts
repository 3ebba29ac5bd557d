/**
 * What the start banner adds for a service that listens beyond loopback: the addresses other
 * machines can reach it at (the listen URL alone says 127.0.0.1, which names the reader's own
 * machine), and, without --public-url, how to name it behind a proxy.
 */
import type { NetworkInterfaceInfo } from 'node:os';
import { isLoopbackName } from '../http/plugins/admin-guard';

interface ReachableInput {
  /** --host as given: 0.0.0.0, ::, a LAN address or name. */
  host: string;
  port: number;
  publicUrl?: string;
  /** os.networkInterfaces(); a parameter so that tests pass their own. */
  interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>;
}

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);
const LABEL = '  reachable at:   ';
const INDENT = ' '.repeat(LABEL.length);

/** Banner lines (none for a loopback service): the reachable base URLs, then the proxy advice. */
export function reachableLines({ host, port, publicUrl, interfaces }: ReachableInput): string[] {
  if (isLoopbackName(host)) return [];
  // A wildcard binding answers on every interface: its IPv4 addresses, other machines' first. A
  // named address answers there only, which the "listening on" line already shows.
  const urls = WILDCARD_HOSTS.has(host) ? ipv4Urls(interfaces, port) : [];
  const lines = urls.map((url, index) => `${index === 0 ? LABEL : INDENT}${url}`);
  if (!publicUrl) {
    lines.push('  behind a proxy: set --public-url to the address people use (and --trust-proxy to the proxy); until then, URLs follow the host each request came to');
  }
  return lines;
}

function ipv4Urls(interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>, port: number): string[] {
  const found = Object.entries(interfaces).flatMap(([name, infos]) =>
    (infos ?? []).filter((info) => info.family === 'IPv4').map((info) => ({ name, address: info.address, internal: info.internal })),
  );
  const ordered = [...found.filter((info) => !info.internal), ...found.filter((info) => info.internal)];
  const seen = new Set<string>();
  return ordered.flatMap(({ name, address, internal }) => {
    if (seen.has(address)) return [];
    seen.add(address);
    return [`http://${address}:${port} (${internal ? 'this machine' : name})`];
  });
}
