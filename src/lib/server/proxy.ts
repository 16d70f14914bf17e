// What a request says about itself through a reverse proxy (client address, scheme), and how much
// of it to believe. X-Forwarded-For is a list each proxy appends to; only the entries our own
// proxies added can be trusted, so the client is read from the right, never the left.
import { BlockList, isIP } from 'node:net';

/** How far to trust X-Forwarded-* headers: a number of proxy hops, or the proxies' addresses. */
export interface ProxyTrust {
  /** Proxies in front of Atrium: the client is the `hops`-th entry from the right. */
  hops: number;
  /** When set, only these addresses/ranges are proxies: entries are skipped from the right while they match. */
  addresses: BlockList | null;
}

/**
 * `TRUST_PROXY`: unset/`0`/`false` trust nothing; `1`/`true` one proxy; `2`… that many; a comma-
 * separated list of addresses and CIDR ranges (`127.0.0.1, 10.0.0.0/8, ::1`) trusts those proxies.
 */
export function parseTrustProxy(value: string | undefined): ProxyTrust | null {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '' || v === '0' || v === 'false' || v === 'off') return null;
  if (v === 'true' || v === 'on') return { hops: 1, addresses: null };
  if (/^\d+$/.test(v)) return { hops: Number(v), addresses: null };
  const list = new BlockList();
  for (const part of v.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [ip = '', bits] = part.split('/');
    const family = isIP(ip);
    if (!family || (bits !== undefined && !/^\d{1,3}$/.test(bits))) {
      throw new Error(`TRUST_PROXY must be 1, a number of proxies, or a list of proxy addresses/CIDR ranges, got "${value}"`);
    }
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(ip, type);
    else list.addSubnet(ip, Number(bits), type);
  }
  return { hops: 1, addresses: list };
}

const v4mapped = (ip: string): string => (ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip);

function trusted(list: BlockList, ip: string): boolean {
  const a = v4mapped(ip);
  const family = isIP(a);
  return family !== 0 && list.check(a, family === 6 ? 'ipv6' : 'ipv4');
}

/** The entry of a comma-separated X-Forwarded-* header that the trusted proxies vouch for; null when none. */
function pick(header: string | null | undefined, peer: string, trust: ProxyTrust, isAddress: boolean): string | null {
  const entries = (header ?? '').split(',').map((e) => e.trim()).filter(Boolean);
  if (!entries.length) return null;
  if (trust.addresses) {
    if (!trusted(trust.addresses, peer)) return null;
    if (!isAddress) return entries[entries.length - 1]!;
    for (let i = entries.length - 1; i >= 0; i--) if (!trusted(trust.addresses, entries[i]!)) return entries[i]!;
    return entries[0]!;
  }
  return entries[Math.max(0, entries.length - trust.hops)]!;
}

/** The client's address: the socket peer, or behind trusted proxies the address they saw. */
export function forwardedClientIp(forwardedFor: string | null | undefined, peer: string, trust: ProxyTrust | boolean | null): string {
  const t = trust === true ? { hops: 1, addresses: null } : trust || null;
  if (!t) return peer;
  const ip = pick(forwardedFor, peer, t, true);
  // A value that is not an address (`unknown`, a port glued on) is ignored rather than trusted.
  return ip && isIP(v4mapped(ip)) ? v4mapped(ip) : peer;
}

/** `https` or `http` as the trusted proxy reported it (X-Forwarded-Proto); null when not trusted or absent. */
export function forwardedProto(header: string | null | undefined, peer: string, trust: ProxyTrust | boolean | null): 'https' | 'http' | null {
  const t = trust === true ? { hops: 1, addresses: null } : trust || null;
  if (!t) return null;
  const proto = pick(header, peer, t, false)?.toLowerCase();
  return proto === 'https' || proto === 'http' ? proto : null;
}

/** Addresses only this machine can connect to (what HOST may be for a count of proxies to be safe). */
function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h === '::1') return true;
  const a = v4mapped(h);
  return isIP(a) === 4 && a.startsWith('127.');
}

/**
 * Why the server must not start with this trust, or null: a number of proxies (`TRUST_PROXY=1`)
 * believes X-Forwarded-For from every peer, so on an address beyond loopback anyone who reaches the
 * port chooses the address that rate limits, lockouts and the login history see.
 */
export function exposedTrustProblem(value: string | undefined, trust: ProxyTrust | null | undefined, host: string): string | null {
  if (!trust || trust.addresses || isLoopbackHost(host)) return null;
  return `TRUST_PROXY=${(value ?? '').trim()} believes X-Forwarded-For from any peer, and HOST=${host} lets anyone who reaches this port send one (and pick the address rate limits and the login history see). `
    + 'Name the proxies instead: TRUST_PROXY=<their addresses or CIDR ranges>, e.g. TRUST_PROXY=127.0.0.1,::1 for nginx on this host or TRUST_PROXY=172.30.0.0/24 for a container network; '
    + 'or listen on loopback only (HOST=127.0.0.1).';
}
