/**
 * `$security` in `*.pb.js` files: the same `security.pb.js` ran on PocketBase 0.40.4
 * (`test/pocketbase/hooks/security.json`, recorded by `test/pocketbase/hooks/record.ts`) and here
 * answers alike: digests and HMACs, constant-time equal, random strings (by alphabet and by
 * regex, checked against their patterns), JWTs both ways (an oracle-made token verified here, an
 * svcbase-made token that PocketBase verified), AES-GCM both ways (an oracle cipher decrypted
 * here, an svcbase cipher that PocketBase decrypted).
 */
import { securitySuite } from './pocketbase/hooks/cases.js'
import { describeRecordedSuite, type Allowed } from './pocketbase/hooks/suite-test.js'

/** Where svcbase answers otherwise, on purpose. */
const ALLOWED: Record<string, Allowed> = {
  'decrypt not base64': {
    status: 400,
    why: 'PocketBase panics on a cipher text shorter than the nonce (500); svcbase answers 400',
  },
}

describeRecordedSuite('$security in *.pb.js files, as PocketBase answers', securitySuite, {
  allowed: ALLOWED,
  label: (a) => `${a.path.slice(0, 60)} (${a.name})`,
})
