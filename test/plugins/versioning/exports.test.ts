import { describe, expect, it } from 'vitest';
import * as versioningPackage from '@crudsmith/versioning';

// The public surface is a contract (STYLE rule 12).
describe('@crudsmith/versioning exports', () => {
  it('exports exactly the documented names', () => {
    expect(Object.keys(versioningPackage).sort()).toEqual(['buildOpenApiDocument', 'deprecationHeaders', 'parseDeprecation', 'versioning']);
  });
});
