import { expect, test } from 'vitest'
import { proxiedPostgresUrl } from './proxied-postgres-url.ts'

const proxy = { host: '127.0.0.1', port: 40123 }

test('replaces host and port, keeping user, password, database and options', () => {
  expect(proxiedPostgresUrl('postgres://postgres@127.0.0.1:5432/test', proxy)).toBe(
    'postgres://postgres@127.0.0.1:40123/test',
  )
  expect(
    proxiedPostgresUrl('postgresql://app:p%40ss@db.internal/venue?sslmode=disable', proxy),
  ).toBe('postgresql://app:p%40ss@127.0.0.1:40123/venue?sslmode=disable')
})

test('drops host and port query parameters, which would override the proxy', () => {
  expect(
    proxiedPostgresUrl(
      'postgres:///test?host=/var/run/postgresql&port=5433&application_name=x',
      proxy,
    ),
  ).toBe('postgres://127.0.0.1:40123/test?application_name=x')
})
