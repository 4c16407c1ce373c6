import type { Knex } from 'knex';
import { ValidationError, type Migration, type Principal } from '@crudsmith/core';
import type { AdminUser } from './admin-users';

/** A role as the app's role store answers it: its name and the permissions it holds. */
export interface RoleOfCatalogue {
  name: string;
  permissions: readonly string[];
}

/** Where the roles come from: the account plugin's `roles` has these methods. */
export interface RoleCatalogue {
  /** Every role with its permissions. */
  list(): Promise<readonly RoleOfCatalogue[]>;
  /** The roles an app user holds: with `setRoles`, the roles page assigns app users' roles too. */
  rolesOf?(userId: string): Promise<{ roles: readonly string[] }>;
  /**
   * Sets exactly the roles an app user holds (422 naming an unknown role); through `trx`
   * when given, the admin's transaction its event is written in, so both commit together.
   */
  setRoles?(userId: string, roles: string[], trx?: Knex.Transaction): Promise<string[]>;
}

/** What an admin user holds: role names and the union of their permissions. */
export interface HeldRoles {
  roles: string[];
  permissions: string[];
}

/** How admin users take part in the models' access policies (the admin's `access` option). */
export interface AdminAccessOptions {
  /** The roles an admin user may be given, with their permissions: the account plugin's `roles`. */
  roles: RoleCatalogue;
  /**
   * The principal an admin user holding roles acts as. Default: its roles and permissions,
   * not a superuser, transport `admin`, id `admin:<id>`, which no row rule of the app's
   * users matches; give this when row rules compare `principal.id` with a typed column
   * (the example maps an admin user to the API user of the same name).
   */
  principal?: (user: AdminUser, held: HeldRoles) => Principal | Promise<Principal>;
}

const NO_ROLES: RoleCatalogue = { list: async () => [] };

/** The admin users' roles: which admin user holds which role (by name). */
export function adminUserRolesMigration(table: string, users: string): Migration {
  return {
    async up(knex) {
      await knex.schema.createTable(table, (t) => {
        t.integer('admin_user_id').unsigned().notNullable().references('id').inTable(users).onDelete('CASCADE');
        t.string('role', 64).notNullable();
        t.primary(['admin_user_id', 'role']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable(table);
    },
  };
}

/**
 * Roles of admin users. An admin user without roles keeps full access (a superuser to every
 * policy); one with roles acts as a principal holding them, so the models' policies decide
 * what it sees and may do. Read on every admin request (one indexed query, and the role
 * list), so a change applies to the user's next request.
 */
export class AdminRoles {
  constructor(
    private readonly knex: Knex,
    private readonly table: string,
    private readonly options: AdminAccessOptions | undefined,
  ) {}

  /** The app's role store (empty without the `access` option). */
  get store(): RoleCatalogue {
    return this.options?.roles ?? NO_ROLES;
  }

  /** Whether roles can be given (the `access` option is set). */
  get enabled(): boolean {
    return this.options !== undefined;
  }

  /** Every role an admin user may be given. */
  async catalogue(): Promise<readonly RoleOfCatalogue[]> {
    return this.options ? this.options.roles.list() : [];
  }

  /** The role names of one admin user, sorted. */
  async of(userId: number): Promise<string[]> {
    if (!this.options) return [];
    return ((await this.knex(this.table).where({ admin_user_id: userId }).pluck('role')) as string[]).sort();
  }

  /** The role names of every admin user that holds one, by admin user id. */
  async all(): Promise<Map<number, string[]>> {
    const byUser = new Map<number, string[]>();
    if (!this.options) return byUser;
    const rows: { admin_user_id: number; role: string }[] = await this.knex(this.table)
      .select('admin_user_id', 'role')
      .orderBy(['admin_user_id', 'role']);
    for (const row of rows)
      byUser.set(Number(row.admin_user_id), [...(byUser.get(Number(row.admin_user_id)) ?? []), row.role]);
    return byUser;
  }

  /**
   * The role names, once each and sorted; 422 naming a role the catalogue does not have. It
   * reads the catalogue on the app's connection: call it before a transaction, which on
   * SQLite holds the only one.
   */
  async checked(roles: readonly string[]): Promise<string[]> {
    const names = [...new Set(roles)].sort();
    const known = new Set((await this.catalogue()).map((role) => role.name));
    const unknown = names.filter((name) => !known.has(name));
    if (unknown.length > 0)
      throw ValidationError.of(['body', 'roles'], `Unknown role: ${unknown.join(', ')}`, 'unknown_role');
    return names;
  }

  /** Makes `names` (checked) exactly the roles an admin user holds, in `trx`. */
  async write(userId: number, names: readonly string[], trx: Knex.Transaction): Promise<void> {
    await trx(this.table).where({ admin_user_id: userId }).delete();
    if (names.length > 0) await trx(this.table).insert(names.map((role) => ({ admin_user_id: userId, role })));
  }

  /** The principal the models' policies see for an admin user. */
  async principalOf(user: AdminUser): Promise<Principal> {
    const roles = await this.of(user.id);
    if (!this.options || roles.length === 0) return fullAccess(user);
    const held = new Set(roles);
    const permissions = new Set<string>();
    for (const role of await this.catalogue())
      if (held.has(role.name)) for (const permission of role.permissions) permissions.add(permission);
    const access: HeldRoles = { roles, permissions: [...permissions].sort() };
    if (this.options.principal) return this.options.principal(user, access);
    return {
      id: `admin:${user.id}`,
      tierId: null,
      isSuperuser: false,
      scopes: [],
      roles: access.roles,
      permissions: access.permissions,
      transport: 'admin',
    };
  }
}

/** The principal of an admin user without roles: every policy lets it through, as before roles existed. */
export function fullAccess(user: AdminUser): Principal {
  return { id: `admin:${user.id}`, tierId: null, isSuperuser: true, scopes: [], transport: 'admin' };
}
