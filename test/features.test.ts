import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { silentLogger } from '../src/core/logger.js'
import { builtInFeatures, type Feature } from '../src/features/index.js'
import { createServer, type Server } from '../src/server.js'

const dirs: string[] = []
const servers: Server[] = []

/** A composed server on a fresh data dir, closed after the test. */
async function start(options: Parameters<typeof createServer>[1] = {}): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-features-'))
  dirs.push(dir)
  const server = await createServer({ dataDir: dir, logger: silentLogger }, options)
  servers.push(server)
  return server
}

afterEach(async () => {
  for (const server of servers.splice(0)) await server.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A feature that writes what happens to it into `log`. */
function probe(name: string, log: string[]): Feature {
  return {
    name,
    register: ({ app, http }) => {
      log.push(`register ${name} (bootstrapped: ${app.isBootstrapped})`)
      app.hooks.onBootstrap.bind(async (e) => {
        log.push(`bootstrap ${name}`)
        await e.next()
        log.push(`bootstrapped ${name} (collections: ${e.app.collections.find('users') ? 1 : 0})`)
      })
      http.get(`/probe/${name}`, async () => ({ name }))
    },
    close: () => {
      log.push(`close ${name}`)
    },
  }
}

describe('features', () => {
  it('registers the built-ins in the order of features/index.ts', async () => {
    const names = builtInFeatures().map((f) => f.name)
    expect(new Set(names).size).toBe(names.length)
    expect(names.slice(0, 4)).toEqual(['health', 'setup', 'collections', 'records'])
    expect(names.at(-1)).toBe('not-built')
    const server = await start()
    expect(server.features).toEqual(names)
    // Feature settings groups are listed in registration order, after core's.
    const keys = Object.keys(server.app.settings.withoutSecrets())
    const features = ['llm', 'sms', 'push', 'payments', 'audit']
    expect(keys.filter((k) => features.includes(k))).toEqual(features)
  })

  it('registers features in order before the app bootstraps, and closes them in reverse', async () => {
    const log: string[] = []
    const server = await start({ features: [probe('first', log), probe('second', log)] })
    expect(server.features).toEqual(['first', 'second'])
    expect(log).toEqual([
      'register first (bootstrapped: false)',
      'register second (bootstrapped: false)',
      // Hooks are an onion: the first handler bound wraps the second.
      'bootstrap first',
      'bootstrap second',
      'bootstrapped second (collections: 1)',
      'bootstrapped first (collections: 1)',
    ])
    const res = await server.http.inject({ method: 'GET', url: '/probe/second' })
    expect(res.json()).toEqual({ name: 'second' })
    log.length = 0
    await server.close()
    servers.length = 0
    expect(log).toEqual(['close second', 'close first'])
    expect(server.app.isBootstrapped).toBe(false)
  })

  it('does not register a switched-off feature: its routes answer 404, its service is absent', async () => {
    const on = await start()
    expect((await on.http.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200)
    expect(on.app.services.find('metrics')).toBeDefined()

    const off = await start({ disable: ['metrics', 'llm'] })
    expect(off.features).not.toContain('metrics')
    expect(off.features).toEqual(on.features.filter((n) => n !== 'metrics' && n !== 'llm'))
    const res = await off.http.inject({ method: 'GET', url: '/metrics' })
    expect(res.statusCode).toBe(404)
    expect(res.json()).toMatchObject({ code: 404 })
    expect(off.app.services.find('metrics')).toBeUndefined()
    expect(off.app.services.names()).not.toContain('metrics')
    // A switched-off feature's settings group is not there either.
    expect(off.app.settings.withoutSecrets()).not.toHaveProperty('llm')
    expect(on.app.settings.withoutSecrets()).toHaveProperty('llm')
  })

  it('refuses to switch off a feature that does not exist', async () => {
    await expect(start({ disable: ['metrix'] })).rejects.toThrow(/metrix/)
  })

  it('refuses two features with one name', async () => {
    const log: string[] = []
    await expect(start({ features: [probe('twin', log), probe('twin', log)] })).rejects.toThrow(
      /two features are named "twin"/,
    )
    expect(log).toEqual([])
  })

  it('closes what it built when a feature fails to register', async () => {
    const log: string[] = []
    const broken: Feature = {
      name: 'broken',
      register: () => {
        throw new Error('broken feature')
      },
    }
    await expect(start({ features: [probe('ok', log), broken] })).rejects.toThrow('broken feature')
    expect(log).toEqual(['register ok (bootstrapped: false)', 'close ok'])
  })
})
