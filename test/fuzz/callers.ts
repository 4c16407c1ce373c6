// The credentials the fuzz sends: the superuser and an ordinary user, each by session
// cookie (with its CSRF header on unsafe methods) or by bearer token. The fuzz itself may
// sign them out, rename them, change their password or delete them; a refused credential
// is dropped, signed in again, and when that fails too, replaced by a fresh account.
import type { Knex } from 'knex';
import { Client } from '../plugins/account/fixture';
import type { Caller } from './fuzz-request';

interface Account {
  username: string;
  password: string;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Credentials of the fuzz's callers, made on first use and after every refusal. */
export class Callers {
  private readonly accounts: Record<'admin' | 'user', Account>;
  private readonly cache = new Map<string, Record<string, string>>();
  private fresh = 0;

  constructor(
    private readonly base: string,
    private readonly knex: Knex,
    admin: Account,
    user: Account,
  ) {
    this.accounts = { admin, user };
  }

  /** The headers that carry the caller's credential for a request with `method`. */
  async headers(caller: Caller, method: string): Promise<Record<string, string>> {
    if (caller.who === 'anonymous') return {};
    const key = `${caller.who}/${caller.transport}`;
    let headers = this.cache.get(key);
    if (!headers) {
      headers = await this.signIn(caller);
      this.cache.set(key, headers);
    }
    // A safe method goes without the CSRF header, as a browser's plain navigation does.
    if (SAFE.has(method) && 'x-csrf-token' in headers) return { cookie: headers.cookie };
    return headers;
  }

  /** Forgets the caller's credential (after a 401): the next request signs in again. */
  refused(caller: Caller): void {
    this.cache.delete(`${caller.who}/${caller.transport}`);
  }

  private async signIn(caller: Caller): Promise<Record<string, string>> {
    const who = caller.who as 'admin' | 'user';
    const attempt = () =>
      caller.transport === 'session' ? this.sessionOf(this.accounts[who]) : this.bearerOf(this.accounts[who]);
    const headers = await attempt();
    if (headers) return headers;
    this.accounts[who] = await this.newAccount(who === 'admin');
    const again = await attempt();
    if (!again) throw new Error(`the fuzz could not sign in the fresh account ${this.accounts[who].username}`);
    return again;
  }

  private async sessionOf(account: Account): Promise<Record<string, string> | undefined> {
    const client = new Client(this.base);
    const answer = await client.login(account.username, account.password);
    if (answer.status !== 200) return undefined;
    return {
      cookie: [...client.jar].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; '),
      'x-csrf-token': client.jar.get('cs_csrf') ?? '',
    };
  }

  private async bearerOf(account: Account): Promise<Record<string, string> | undefined> {
    const answer = await new Client(this.base).request('POST', '/auth/token', {
      form: { username: account.username, password: account.password },
    });
    return answer.status === 200 ? { authorization: `Bearer ${answer.body.access_token}` } : undefined;
  }

  // An account through the API as any visitor makes one, made superuser in the database.
  private async newAccount(superuser: boolean): Promise<Account> {
    const username = `fz${process.pid % 1000}n${++this.fresh}${superuser ? 's' : 'u'}`;
    const account = { username, password: 'fuzz passphrase that is long' };
    const created = await new Client(this.base).request('POST', '/api/v1/users/', {
      json: { name: username, email: `${username}@example.com`, ...account },
    });
    if (created.status !== 201)
      throw new Error(`the fuzz could not create ${username}: ${created.status} ${JSON.stringify(created.body)}`);
    if (superuser) await this.knex('users').where({ username }).update({ is_superuser: true });
    return account;
  }
}
