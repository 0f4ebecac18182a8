/* eslint-disable */
// PocketBase JSVM globals (routerAdd, $security, …): not a module of this repo.
/// <reference path="../pb_data/types.d.ts" />
// $security as PocketBase offers it: digests, HMACs, constant-time equal, random strings, JWTs, AES-GCM.

routerAdd('GET', '/sec/digests', (e) => {
  const s = e.request.url.query().get('s')
  return e.json(200, {
    md5: $security.md5(s),
    sha256: $security.sha256(s),
    sha512: $security.sha512(s),
    hs256: $security.hs256(s, 'secret'),
    hs512: $security.hs512(s, 'secret'),
    equal: $security.equal(s, 'abc'),
    equalSelf: $security.equal(s, s),
  })
})

routerAdd('GET', '/sec/random', (e) => {
  const a = $security.randomString(24)
  const b = $security.randomStringWithAlphabet(40, 'xyz')
  const c = $security.pseudorandomString(12)
  const d = $security.pseudorandomStringWithAlphabet(30, '01')
  const r = $security.randomStringByRegex('[a-c]{3}-\\d{4}-(foo|bar)')
  const r2 = $security.randomStringByRegex('[A-Z][a-z0-9_]{5,9}(?:x|yz)*[[:digit:]]\\w?')
  return e.json(200, {
    a: /^[A-Za-z0-9]{24}$/.test(a),
    b: /^[xyz]{40}$/.test(b),
    c: /^[A-Za-z0-9]{12}$/.test(c),
    d: /^[01]{30}$/.test(d),
    r: /^[a-c]{3}-[0-9]{4}-(foo|bar)$/.test(r),
    r2: /^[A-Z][a-z0-9_]{5,9}(?:x|yz)*[0-9]\w?$/.test(r2),
    distinct: $security.randomString(24) !== a,
    zero: $security.randomString(0),
  })
})

routerAdd('GET', '/sec/regex/bad', (e) => {
  return e.string(200, $security.randomStringByRegex('[a-'))
})

routerAdd('GET', '/sec/regex/anchored', (e) => {
  return e.string(200, $security.randomStringByRegex('^abc$'))
})

routerAdd('GET', '/sec/regex/fixed', (e) => {
  return e.string(200, $security.randomStringByRegex('abc-[x]{3}(?:def)'))
})

routerAdd('GET', '/sec/jwt', (e) => {
  const token = $security.createJWT({ sub: 'u1', n: 7, list: ['a', 1] }, 'key-1', 3600)
  const claims = $security.parseJWT(token, 'key-1')
  const unverified = $security.parseUnverifiedJWT(token)
  const parts = token.split('.')
  return e.json(200, {
    header: JSON.parse(String.fromCharCode.apply(null, Array.from(atobUrl(parts[0])))),
    sub: claims.sub,
    n: claims.n,
    list: claims.list,
    expInAnHour: Math.abs(claims.exp - Math.floor(Date.now() / 1000) - 3600) <= 5,
    keys: Object.keys(claims).sort(),
    unverifiedSub: unverified.sub,
  })
  function atobUrl(s) {
    const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    const out = []
    let buf = 0,
      bits = 0
    for (const ch of s) {
      buf = (buf << 6) | abc.indexOf(ch)
      bits += 6
      if (bits >= 8) {
        bits -= 8
        out.push((buf >> bits) & 255)
      }
    }
    return out
  }
})

routerAdd('GET', '/sec/jwt/fixed', (e) => {
  // HS256 over {"sub":"fixed","exp":4102444800} with the key "key-1"
  const token = e.request.url.query().get('token')
  const key = e.request.url.query().get('key')
  if (key === '') {
    return e.json(200, $security.parseUnverifiedJWT(token))
  }
  return e.json(200, $security.parseJWT(token, key))
})

routerAdd('GET', '/sec/jwt/make', (e) => {
  const secs = parseInt(e.request.url.query().get('secs') || '-60')
  return e.string(200, $security.createJWT({ sub: 'fixed', nested: { b: 2, a: 1 } }, 'key-1', secs))
})

routerAdd('GET', '/sec/encrypt', (e) => {
  const data = e.request.url.query().get('data')
  const key = e.request.url.query().get('key')
  const cipher = $security.encrypt(data, key)
  const back = $security.decrypt(cipher, key)
  if (e.request.url.query().get('raw') !== '') {
    return e.string(200, cipher)
  }
  return e.json(200, {
    cipherLength: cipher.length,
    back: back,
    backType: typeof back,
    differs: $security.encrypt(data, key) !== cipher,
  })
})

routerAdd('GET', '/sec/decrypt', (e) => {
  const cipher = e.request.url.query().get('cipher')
  const key = e.request.url.query().get('key')
  return e.string(200, $security.decrypt(cipher, key))
})
