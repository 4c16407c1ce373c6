import type { Knex } from 'knex';
import { DuplicateValueError, ValidationError } from '@crudsmith/core';
import type { AccessTables } from './access-tables';

/** What a user holds: role names and the union of their permissions, both sorted. */
export interface Access {
  roles: string[];
  permissions: string[];
}

/** A role as the management routes answer it. */
export interface Role {
  name: string;
  permissions: string[];
}

const ROLE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const PERMISSION = /^[A-Za-z0-9_.*-]+(:[A-Za-z0-9_.*-]+)*$/;
const NONE: Access = Object.freeze({ roles: [], permissions: [] }) as Access;
// A process caches at most this many users' access; past it, the cache starts over.
const CACHE_LIMIT = 10_000;

/** 422 unless `name` is a role name (letters, digits, `_`, `.`, `-`; at most 64). */
export function checkRoleName(name: unknown, loc: (string | number)[]): string {
  if (typeof name !== 'string' || !ROLE_NAME.test(name))
    throw ValidationError.of(loc, 'A role name is 1 to 64 letters, digits, _, . or -', 'role_name');
  return name;
}

/** 422 unless `value` is a list of permission strings such as `notes:update` (each at most 100 characters). */
export function checkPermissions(value: unknown, loc: (string | number)[]): string[] {
  if (!Array.isArray(value)) throw ValidationError.of(loc, 'Input should be a valid list', 'list_type');
  value.forEach((p, i) => {
    if (typeof p !== 'string' || p.length > 100 || !PERMISSION.test(p))
      throw ValidationError.of(
        [...loc, i],
        'A permission is words joined by colons, such as notes:update',
        'permission',
      );
  });
  return [...new Set(value as string[])].sort();
}

/**
 * Roles, their permissions and who holds them. A user's access is read with one query and
 * cached in the process; every change bumps a counter in the database, which each process
 * reads at most once a second (and before the first use after a second has passed), so a
 * change made anywhere is seen everywhere within a second, on every engine, with no other
 * service.
 */
export class Roles {
  private cache = new Map<string, Promise<Access>>();
  private version: number | null = null;
  private checkedAt = -Infinity;
  private checking: Promise<void> | null = null;

  constructor(
    private readonly knex: Knex,
    private readonly tables: AccessTables,
    private readonly now: () => number,
  ) {}

  /** The roles and permissions of a user (cached; see the class). */
  async rolesOf(userId: string | number): Promise<Access> {
    await this.fresh();
    const key = String(userId);
    let access = this.cache.get(key);
    if (!access) {
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      access = this.read(key);
      this.cache.set(key, access);
      access.catch(() => this.cache.delete(key));
    }
    return access;
  }

  /** Every role with its permissions, by name. */
  async list(): Promise<Role[]> {
    const { roles, rolePermissions } = this.tables;
    const rows: { name: string; permission: string | null }[] = await this.knex(roles)
      .leftJoin(rolePermissions, `${rolePermissions}.role_id`, `${roles}.id`)
      .select(`${roles}.name as name`, `${rolePermissions}.permission as permission`)
      .orderBy([`${roles}.name`, `${rolePermissions}.permission`]);
    const byName = new Map<string, string[]>();
    for (const row of rows) {
      const list = byName.get(row.name) ?? [];
      if (row.permission) list.push(row.permission);
      byName.set(row.name, list);
    }
    return [...byName].map(([name, permissions]) => ({ name, permissions }));
  }

  /** Creates a role holding `permissions`; 409 when the name is taken. */
  async createRole(name: string, permissions: string[] = []): Promise<Role> {
    checkRoleName(name, ['body', 'name']);
    const granted = checkPermissions(permissions, ['body', 'permissions']);
    await this.knex.transaction(async (trx) => {
      const taken = await trx(this.tables.roles).where({ name }).first('id');
      if (taken) throw new DuplicateValueError(`Role '${name}' already exists`);
      await trx(this.tables.roles).insert({ name, created_at: this.now() });
      const id = await this.roleId(trx, name);
      if (granted.length > 0)
        await trx(this.tables.rolePermissions).insert(granted.map((permission) => ({ role_id: id, permission })));
    });
    await this.changed();
    return { name, permissions: granted };
  }

  /** Adds permissions to a role (those it holds already are kept once). */
  async grant(role: string, permissions: string[]): Promise<void> {
    const wanted = checkPermissions(permissions, ['permissions']);
    await this.knex.transaction(async (trx) => {
      const id = await this.roleId(trx, role);
      const held = new Set(
        (await trx(this.tables.rolePermissions).where({ role_id: id }).pluck('permission')) as string[],
      );
      const added = wanted.filter((p) => !held.has(p));
      if (added.length > 0)
        await trx(this.tables.rolePermissions).insert(added.map((permission) => ({ role_id: id, permission })));
    });
    await this.changed();
  }

  /** Removes permissions from a role. */
  async revoke(role: string, permissions: string[]): Promise<void> {
    const id = await this.roleId(this.knex, role);
    await this.knex(this.tables.rolePermissions).where({ role_id: id }).whereIn('permission', permissions).delete();
    await this.changed();
  }

  /** Gives a user a role (a no-op when it holds it). */
  async assign(userId: string | number, role: string): Promise<void> {
    const held = (await this.read(String(userId))).roles;
    if (!held.includes(role)) await this.setRoles(userId, [...held, role]);
  }

  /** Takes a role from a user. */
  async unassign(userId: string | number, role: string): Promise<void> {
    const held = (await this.read(String(userId))).roles;
    await this.setRoles(
      userId,
      held.filter((r) => r !== role),
    );
  }

  /**
   * Sets exactly the roles a user holds; 422 naming a role that does not exist. In `trx`
   * when given, the change counter too, so the change commits with the caller's writes;
   * this process's cache is then dropped once it commits.
   */
  async setRoles(userId: string | number, roles: string[], trx?: Knex.Transaction): Promise<string[]> {
    const names = [...new Set(roles)].sort();
    const user = String(userId);
    const write = async (db: Knex.Transaction) => {
      const found: { id: number; name: string }[] =
        names.length > 0 ? await db(this.tables.roles).whereIn('name', names).select('id', 'name') : [];
      const missing = names.filter((n) => !found.some((r) => r.name === n));
      if (missing.length > 0)
        throw ValidationError.of(['body', 'roles'], `Unknown role: ${missing.join(', ')}`, 'unknown_role');
      await db(this.tables.userRoles).where({ user_id: user }).delete();
      if (found.length > 0)
        await db(this.tables.userRoles).insert(found.map((r) => ({ user_id: user, role_id: r.id })));
    };
    if (!trx) {
      await this.knex.transaction(write);
      await this.changed();
      return names;
    }
    await write(trx);
    await trx(this.tables.accessVersion).where({ id: 1 }).increment('version', 1);
    // Dropped only after the commit: a read in between would cache the roles as they were.
    trx.executionPromise.then(
      () => this.forget(),
      () => undefined,
    );
    return names;
  }

  /** Drops this process's cache now (other processes drop theirs within a second). */
  async changed(): Promise<void> {
    await this.knex(this.tables.accessVersion).where({ id: 1 }).increment('version', 1);
    this.forget();
  }

  private forget(): void {
    this.cache.clear();
    this.checkedAt = -Infinity;
  }

  // Once a second at most: the counter moved, so another process changed something.
  private async fresh(): Promise<void> {
    if (this.now() - this.checkedAt < 1000) return;
    this.checking ??= (async () => {
      try {
        const row = await this.knex(this.tables.accessVersion).where({ id: 1 }).first('version');
        const version = Number(row?.version ?? 0);
        if (version !== this.version) this.cache.clear();
        this.version = version;
        this.checkedAt = this.now();
      } finally {
        this.checking = null;
      }
    })();
    await this.checking;
  }

  private async read(userId: string): Promise<Access> {
    const { roles, rolePermissions, userRoles } = this.tables;
    const rows: { name: string; permission: string | null }[] = await this.knex(userRoles)
      .join(roles, `${roles}.id`, `${userRoles}.role_id`)
      .leftJoin(rolePermissions, `${rolePermissions}.role_id`, `${roles}.id`)
      .where(`${userRoles}.user_id`, userId)
      .select(`${roles}.name as name`, `${rolePermissions}.permission as permission`);
    if (rows.length === 0) return NONE;
    const names = new Set<string>();
    const permissions = new Set<string>();
    for (const row of rows) {
      names.add(row.name);
      if (row.permission) permissions.add(row.permission);
    }
    return { roles: [...names].sort(), permissions: [...permissions].sort() };
  }

  private async roleId(knex: Knex, name: string): Promise<number> {
    const row = await knex(this.tables.roles).where({ name }).first('id');
    if (!row) throw ValidationError.of(['role'], `Unknown role: ${name}`, 'unknown_role');
    return Number(row.id);
  }
}
