import { Model } from 'objection';
import { Equals, IsBoolean, IsEmail, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';

/** Where `profile_image_url` points until a user uploads an avatar; the app serves it. */
export const DEFAULT_AVATAR_URL = '/static/avatars/default.svg';

/** `POST /api/v1/users/` body. The password policy is the account plugin's. */
export class UserCreate {
  @IsString() @MinLength(2) @MaxLength(30) name!: string;
  @IsString()
  @MinLength(2)
  @MaxLength(20)
  @Matches(/^[a-z0-9]+$/, { message: 'username may hold lower-case letters and digits only' })
  username!: string;
  @IsEmail() @MaxLength(50) email!: string;
  @IsString() password!: string;
}

/** `POST /api/v2/users/` body: `accept_terms` is required and must be true. */
export class UserCreateV2 extends UserCreate {
  @IsBoolean() @Equals(true, { message: 'accept_terms must be true' }) accept_terms!: boolean;
}

/** `PATCH /api/v1/users/{user_id}` body: passwords change only through /auth. */
export class UserUpdate {
  @IsOptional() @IsString() @MinLength(2) @MaxLength(30) name?: string;
  @IsOptional()
  @IsString()
  @MinLength(2)
  @MaxLength(20)
  @Matches(/^[a-z0-9]+$/, { message: 'username may hold lower-case letters and digits only' })
  username?: string;
  @IsOptional() @IsEmail() @MaxLength(50) email?: string;
}

/** UserRead: never a password hash, a token version or any other secret. */
export interface UserRead {
  id: number;
  name: string;
  username: string;
  email: string;
  profile_image_url: string;
  tier_id: number | null;
}

/** Serialises a user row (from knex or the account plugin) as UserRead. */
export function toUserRead(row: Record<string, unknown>): UserRead {
  return {
    id: Number(row.id),
    name: String(row.name ?? ''),
    username: String(row.username),
    email: String(row.email),
    profile_image_url: (row.profile_image_url as string | null) ?? DEFAULT_AVATAR_URL,
    tier_id: row.tier_id === null || row.tier_id === undefined ? null : Number(row.tier_id),
  };
}

/** UserReadV2: `avatar_url`, the tier's name, `created_at`, `is_verified`. */
export interface UserReadV2 {
  id: number;
  name: string;
  username: string;
  email: string;
  avatar_url: string;
  subscription_tier: string | null;
  created_at: string;
  is_verified: boolean;
}

/** Serialises a user row as UserReadV2, given the name of its tier (null without one). */
export function toUserReadV2(row: Record<string, unknown>, tierName: string | null): UserReadV2 {
  const { id, name, username, email, profile_image_url } = toUserRead(row);
  return {
    id,
    name,
    username,
    email,
    avatar_url: profile_image_url,
    subscription_tier: tierName,
    // SQLite hands datetimes back as epoch milliseconds, the others as Dates.
    created_at: new Date(row.created_at as Date | number | string).toISOString(),
    is_verified: Boolean(Number(row.is_verified ?? 0)),
  };
}

const datetime = { type: ['string', 'null'], format: 'date-time' };

/** The example's user: the account plugin signs these users in (column map: its defaults). */
export class User extends Model {
  static override tableName = 'users';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer', minimum: 1, maximum: 2147483647 },
      name: { type: 'string', maxLength: 30 },
      username: { type: 'string', maxLength: 20 },
      email: { type: 'string', maxLength: 50 },
      hashed_password: { type: ['string', 'null'] },
      profile_image_url: { type: ['string', 'null'], maxLength: 255 },
      tier_id: { type: ['integer', 'null'] },
      is_superuser: { type: 'boolean' },
      is_verified: { type: 'boolean' },
      token_version: { type: 'integer' },
      is_deleted: { type: 'boolean' },
      deleted_at: datetime,
      created_at: { type: 'string', format: 'date-time' },
      updated_at: datetime,
    },
  };
}
