// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
// The REST binder derives a route's request schemas from its operation's input (./rest.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { Body, IdField } from '../http/schemas.ts';
import { defineOperation } from './operation.ts';
import { requestSchemas } from './rest.ts';

const operation = defineOperation({
  name: 'update_thing',
  summary: 'Probe',
  description: '',
  scope: null,
  idempotency: 'none',
  errors: [],
  input: Body(
    {
      thing_id: IdField('thg'),
      part_id: IdField('prt'),
      name: Type.String({ maxLength: 10 }),
      tier: Type.Optional(Type.String()),
    },
    { description: 'A probe.', examples: [{ thing_id: 'thg_1', part_id: 'prt_1', name: 'a', tier: 'pro' }] },
  ),
  output: Type.Null(),
  run: async () => null,
});

const json = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;

describe('REST request schemas derived from the operation', () => {
  it("takes the URL's names as path parameters and the rest of the input as a POST's body, with its options and cut examples", () => {
    const { params, querystring, body } = requestSchemas(operation, {
      method: 'POST',
      url: '/v1/things/:thing_id/parts/:part_id',
    });
    assert.deepEqual(json(params), {
      type: 'object',
      properties: { thing_id: json(IdField('thg')), part_id: json(IdField('prt')) },
      required: ['thing_id', 'part_id'],
    });
    assert.equal(querystring, undefined);
    const derived = json(body);
    assert.deepEqual(Object.keys(json(derived.properties)), ['name', 'tier']);
    assert.deepEqual(derived.required, ['name']);
    assert.equal(derived.additionalProperties, false);
    assert.equal(derived.description, 'A probe.');
    assert.deepEqual(derived.examples, [{ name: 'a', tier: 'pro' }]);
  });

  it('takes the rest of the input as the query string of a GET or DELETE, and no body', () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const { querystring, body } = requestSchemas(operation, { method, url: '/v1/things/:thing_id/parts/:part_id' });
      assert.deepEqual(Object.keys(json(json(querystring).properties)), ['name', 'tier'], method);
      assert.equal(json(querystring).additionalProperties, undefined, method);
      assert.equal(body, undefined, method);
    }
  });

  it('maps a path name to another field (`path`) and sends the named fields of a POST in its query string (`query`)', () => {
    const { params, querystring, body } = requestSchemas(operation, {
      method: 'PATCH',
      url: '/v1/things/:id/parts/:part_id',
      path: { id: 'thing_id' },
      query: ['tier'],
    });
    assert.deepEqual(Object.keys(json(json(params).properties)), ['id', 'part_id']);
    assert.deepEqual(json(json(params).properties).id, json(IdField('thg')));
    assert.deepEqual(Object.keys(json(json(querystring).properties)), ['tier']);
    assert.deepEqual(Object.keys(json(json(body).properties)), ['name']);
  });

  it('types a field as the binding says (`as`), where REST takes it in another type than the operation', () => {
    const { querystring } = requestSchemas(operation, {
      method: 'GET',
      url: '/v1/things/:thing_id/parts/:part_id',
      as: { name: Type.Number() },
    });
    assert.deepEqual(json(json(querystring).properties).name, { type: 'number' });
  });

  it('refuses at start-up a path name, or a query field, that the input does not have', () => {
    assert.throws(
      () => requestSchemas(operation, { method: 'GET', url: '/v1/things/:id' }),
      /update_thing \(GET \/v1\/things\/:id\): its input has no field id/,
    );
    assert.throws(
      () => requestSchemas(operation, { method: 'POST', url: '/v1/things', query: ['page'] }),
      /its input has no field page/,
    );
  });
});
