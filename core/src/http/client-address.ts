import { BlockList, isIP } from 'node:net';
import { ConfigurationError } from '../errors/configuration-error';

/** Gives the client address of a request from its socket peer and its `X-Forwarded-For`. */
export type AddressResolver = (peer: string, forwardedFor: string | undefined) => string;

/**
 * `X-Forwarded-For` is believed only when the socket peer is a trusted proxy; the client
 * is then the right-most hop that is not itself trusted, since every hop left of it
 * could have been written by the client.
 */
export function createAddressResolver(trustedProxies: readonly string[]): AddressResolver {
  const trusted = new BlockList();
  for (const entry of trustedProxies) addEntry(trusted, entry);
  const isTrusted = (ip: string) => {
    const family = isIP(ip);
    return family !== 0 && trusted.check(ip, family === 4 ? 'ipv4' : 'ipv6');
  };

  return (peer, forwardedFor) => {
    let client = normalize(peer);
    if (!forwardedFor || !isTrusted(client)) return client;
    for (const hop of forwardedFor.split(',').reverse()) {
      const address = normalize(hop.trim());
      // A hop that is not an address was not written by a proxy we trust: stop at the last known one.
      if (isIP(address) === 0) break;
      client = address;
      if (!isTrusted(address)) break;
    }
    return client;
  };
}

function addEntry(list: BlockList, entry: string): void {
  const [written, bits] = entry.trim().split('/');
  const address = bits === undefined ? normalize(written) : written;
  const family = isIP(address);
  const prefix = Number(bits);
  const validBits = bits === undefined || (/^\d{1,3}$/.test(bits) && prefix <= (family === 4 ? 32 : 128));
  if (family === 0 || !validBits) {
    throw new ConfigurationError(`trustedProxies: "${entry}" is not an IP address or CIDR range`);
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (bits === undefined) list.addAddress(address, type);
  else list.addSubnet(address, prefix, type);
}

// A dual-stack socket reports IPv4 peers as `::ffff:a.b.c.d`; everyone else writes `a.b.c.d`.
function normalize(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1] : address;
}
