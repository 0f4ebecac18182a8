import { describe, expect, expectTypeOf, it } from 'vitest'
import type { Mailer, MailMessage } from './mail.js'
import type { ClientMessenger } from './realtime.js'
import { createServices, type AppServices } from './services.js'

const mailer: Mailer = { send: (_m: MailMessage) => Promise.resolve() }
const messenger: ClientMessenger = {
  sendToClient: () => Promise.resolve(true),
  clientOwner: () => Promise.resolve(undefined),
  takeSubscription: () => Promise.resolve(false),
}

describe('services registry', () => {
  it('gives back what was set, typed by its name', () => {
    const services = createServices()
    services.set('mailer', mailer)
    services.set('messenger', messenger)
    expect(services.get('mailer')).toBe(mailer)
    expect(services.get('messenger')).toBe(messenger)
    expectTypeOf(services.get('mailer')).toEqualTypeOf<Mailer>()
    expectTypeOf(services.find('messenger')).toEqualTypeOf<ClientMessenger | undefined>()
    expectTypeOf<keyof AppServices>().toExtend<string>()
    // Checked by the typecheck (`tsc` covers the tests): a wrong type or an unknown name fails.
    // @ts-expect-error no service has this name
    expect(() => services.get('no-such-service')).toThrow('no "no-such-service" service')
    const wrongType = () => {
      // @ts-expect-error a messenger is not a mailer
      services.set('mailer', messenger)
    }
    expectTypeOf(wrongType).toBeFunction()
  })

  it('replaces a service set again under the same name', () => {
    const services = createServices()
    const other: Mailer = { send: () => Promise.reject(new Error('other')) }
    services.set('mailer', mailer)
    services.set('mailer', other)
    expect(services.get('mailer')).toBe(other)
  })

  it('throws from get for a missing service, and find returns undefined', () => {
    const services = createServices()
    expect(() => services.get('messenger')).toThrow('no "messenger" service is registered')
    expect(services.find('messenger')).toBeUndefined()
    services.set('messenger', messenger)
    services.set('mailer', mailer)
    expect(services.names()).toEqual(['mailer', 'messenger'])
    services.delete('messenger')
    expect(services.find('messenger')).toBeUndefined()
    expect(services.names()).toEqual(['mailer'])
  })

  it('keeps each registry apart', () => {
    const a = createServices()
    const b = createServices()
    a.set('mailer', mailer)
    expect(b.find('mailer')).toBeUndefined()
  })
})
