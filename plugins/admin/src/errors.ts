import { ConfigurationError } from '@crudsmith/core';

/** A model view's schema names a field the model does not have, or a setting has a wrong value (the reference's ValueError). */
export class AdminSchemaError extends ConfigurationError {
  constructor(message: string) {
    super(message);
    this.name = 'AdminSchemaError';
  }
}

/** A model view's `model` is not an objection model class (the reference's TypeError). */
export class AdminModelTypeError extends ConfigurationError {
  constructor(message: string) {
    super(message);
    this.name = 'AdminModelTypeError';
  }
}

/** Something the admin needs was not given (the reference's RuntimeError). */
export class AdminDependencyError extends ConfigurationError {
  constructor(message: string) {
    super(message);
    this.name = 'AdminDependencyError';
  }
}
