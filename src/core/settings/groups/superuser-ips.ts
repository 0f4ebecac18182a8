import type { SettingsGroup } from '../group.js'
import { invalid } from '../reader.js'

/**
 * `superuserIPs`: the IPs and CIDR subnets superusers may come from (empty: anywhere). The one
 * group whose value is a list, not an object.
 */
export const superuserIpsSettings: SettingsGroup<string[]> = {
  key: 'superuserIPs',
  defaults: () => [],
  validate: (value, ctx) => (Array.isArray(value) ? ctx.checkIpList(value) : invalid('a list')),
}
