import type { AccessPolicy } from '../access/policy';
import { ACCESS_KEY, defineMetadata } from '../model/declarations';

/** Declares a model's access policy (function twin of `@Access`). */
export function access(model: Function, policy: AccessPolicy): void {
  defineMetadata(ACCESS_KEY, { ...policy }, model);
}

/**
 * Declares who may perform each operation on the model, on which rows, and which fields
 * it may read and write; every generated route and a repository given a principal obey it.
 */
export function Access(policy: AccessPolicy): ClassDecorator {
  return (target) => access(target, policy);
}
