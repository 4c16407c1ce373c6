import type { Knex } from 'knex';
import { DuplicateValueError, mapDatabaseError, type Migration } from '@crudsmith/core';
import { hashSecret } from '@crudsmith/core/auth';

/** A sign-in in progress, between /authorize and /callback. */
export interface OAuthFlow {
  provider: string;
  state: string;
  nonce: string;
  codeVerifier: string;
  redirectTo: string;
}

/** The tables of OpenID Connect sign-in: flows in progress and linked identities. */
export function oauthMigration(tables: { flows: string; identities: string }): Migration {
  return {
    async up(knex) {
      await knex.schema.createTable(tables.flows, (t) => {
        t.string('state_hash', 64).primary();
        t.string('provider', 64).notNullable();
        t.string('nonce', 128).notNullable();
        t.string('code_verifier', 128).notNullable();
        t.string('redirect_to', 2048).notNullable();
        t.bigInteger('created_at').notNullable();
        t.bigInteger('expires_at').notNullable().index();
        t.bigInteger('used_at').nullable();
      });
      await knex.schema.createTable(tables.identities, (t) => {
        t.increments('id');
        t.string('provider', 64).notNullable();
        t.string('subject', 255).notNullable();
        t.string('user_id', 64).notNullable();
        t.bigInteger('created_at').notNullable();
        t.unique(['provider', 'subject']);
        // One identity per provider and user: a second one is a conflict, not a silent relink.
        t.unique(['provider', 'user_id']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable(tables.identities);
      await knex.schema.dropTable(tables.flows);
    },
  };
}

/**
 * Flow state in the database, so whichever process gets the callback finds it: the
 * state is stored only as its hash, the flow is used up by one conditional UPDATE (a
 * replayed callback finds it used), and it expires.
 */
export class OAuthStore {
  constructor(
    private readonly knex: Knex,
    private readonly tables: { flows: string; identities: string },
    private readonly flowMs: number,
  ) {}

  async startFlow(flow: OAuthFlow, now: number): Promise<void> {
    await this.knex(this.tables.flows).insert({
      state_hash: hashSecret(flow.state),
      provider: flow.provider,
      nonce: flow.nonce,
      code_verifier: flow.codeVerifier,
      redirect_to: flow.redirectTo,
      created_at: now,
      expires_at: now + this.flowMs,
    });
    // Expired flows can never be taken: swept as new ones come (the index on expires_at keeps it cheap).
    await this.knex(this.tables.flows).where('expires_at', '<', now).delete();
  }

  /** Uses up the live flow of `state` at `provider`; null when there is none (unknown, used, expired, another provider's). */
  async takeFlow(provider: string, state: string, now: number): Promise<OAuthFlow | null> {
    if (state.length === 0 || state.length > 256) return null;
    const stateHash = hashSecret(state);
    const won = await this.knex(this.tables.flows)
      .where({ state_hash: stateHash, provider })
      .whereNull('used_at')
      .where('expires_at', '>', now)
      .update({ used_at: now });
    if (Number(won) !== 1) return null;
    const row = await this.knex(this.tables.flows).where({ state_hash: stateHash }).first();
    // Swept between the two statements (it expired just then): as good as expired.
    if (!row) return null;
    return {
      provider,
      state,
      nonce: String(row.nonce),
      codeVerifier: String(row.code_verifier),
      redirectTo: String(row.redirect_to),
    };
  }

  /** The user an identity is linked to, if any. */
  async linkedUser(provider: string, subject: string): Promise<string | null> {
    const row = await this.knex(this.tables.identities).where({ provider, subject }).first('user_id');
    return row ? String(row.user_id) : null;
  }

  /** Whether the user has an identity of `provider` already. */
  async hasIdentity(provider: string, userId: string): Promise<boolean> {
    return (await this.knex(this.tables.identities).where({ provider, user_id: userId }).first('id')) !== undefined;
  }

  /** Links an identity to a user; false when the identity or the user's slot for this provider is taken (a concurrent link). */
  async link(provider: string, subject: string, userId: string, now: number): Promise<boolean> {
    try {
      await this.knex(this.tables.identities).insert({ provider, subject, user_id: userId, created_at: now });
      return true;
    } catch (error) {
      if (mapDatabaseError(error) instanceof DuplicateValueError) return false;
      throw error;
    }
  }
}
