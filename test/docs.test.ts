import { execFile } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { NOT_BUILT } from '../src/features/not-built/index.js'

const root = process.cwd()
const read = (file: string) => readFileSync(join(root, file), 'utf8')
const pages = [
  'README.md',
  'ARCHITECTURE.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-')
}

/** The anchors of a Markdown page. */
function anchors(text: string): Set<string> {
  const out = new Set<string>()
  for (const m of text.matchAll(/^#{1,6} (.+)$/gm)) out.add(slug(m[1]!))
  return out
}

/** The fenced code blocks of a page, with their language. */
function blocks(text: string): { lang: string; code: string }[] {
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```/gm)].map((m) => ({
    lang: m[1]!,
    code: m[2]!,
  }))
}

describe('README and docs', () => {
  it('link only files and headings that exist', () => {
    const broken: string[] = []
    for (const page of pages) {
      const text = read(page)
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!
        if (/^[a-z]+:/.test(target)) continue
        const [file, anchor] = target.split('#') as [string, string | undefined]
        const path = file === '' ? join(root, page) : resolve(dirname(join(root, page)), file)
        if (!existsSync(path)) {
          broken.push(`${page}: ${target} (no such file)`)
          continue
        }
        if (anchor && path.endsWith('.md') && !anchors(readFileSync(path, 'utf8')).has(anchor))
          broken.push(`${page}: ${target} (no such heading)`)
      }
      // Bare mentions of Markdown files of the repository must exist too.
      for (const m of text.matchAll(/`((?:[\w-]+\/)*[\w-]+\.md)`/g)) {
        const mentioned = m[1]!
        if (!existsSync(join(root, mentioned)) && !existsSync(join(root, 'docs', mentioned)))
          broken.push(`${page}: \`${mentioned}\` (no such file)`)
      }
    }
    expect(broken).toEqual([])
  })

  it('link ARCHITECTURE.md from the README, and every docs page', () => {
    const readme = read('README.md')
    expect(readme).toContain('](ARCHITECTURE.md)')
    for (const page of pages.filter((p) => p.startsWith('docs/')))
      expect(readme, page).toContain(`](${page})`)
  })

  it('use in their samples only collections the tour or the page creates', () => {
    const created = (text: string) =>
      new Set(
        blocks(text)
          .filter((b) => /POST localhost:8090\/api\/collections -H/.test(b.code))
          .flatMap((b) =>
            [...b.code.matchAll(/"name": "(\w+)", "type": "(?:base|auth|view)"/g)].map(
              (m) => m[1]!,
            ),
          ),
      )
    const builtIn = new Set([
      'users',
      '_superusers',
      '_api_keys',
      '_cron_jobs',
      '_push_subscriptions',
      '_teams',
      '_team_members',
      '_audit_log',
      '_payment_events',
      '_webhooks',
      '_llm_usage',
      // not a collection: the `/api/collections/meta/…` endpoints
      'meta',
    ])
    const fromTour = created(read('README.md'))
    expect([...fromTour]).toEqual(['posts'])
    const missing: string[] = []
    for (const page of pages) {
      const mine = created(read(page))
      for (const b of blocks(read(page)).filter((b) => b.lang === 'sh' || b.lang === 'js')) {
        const used = [
          ...b.code.matchAll(/\/api\/collections\/(\w+)\//g),
          ...b.code.matchAll(/\/api\/files\/(\w+)\//g),
          ...b.code.matchAll(/pb\.collection\('(\w+)'\)/g),
        ].map((m) => m[1]!)
        for (const name of used)
          if (!builtIn.has(name) && !fromTour.has(name) && !mine.has(name))
            missing.push(`${page}: ${name}`)
      }
    }
    expect(missing).toEqual([])
    // The files sample creates its `docs` collection before uploading to it.
    const files = read('docs/files.md')
    expect(files.indexOf('"name": "docs"')).toBeGreaterThan(-1)
    expect(files.indexOf('"name": "docs"')).toBeLessThan(
      files.indexOf('/api/collections/docs/records'),
    )
  })

  it('show the eventsource package wherever the SDK subscribes from Node', () => {
    for (const page of pages) {
      for (const b of blocks(read(page)).filter((b) => b.lang === 'js')) {
        if (!/\.subscribe\(/.test(b.code)) continue
        expect(b.code, page).toContain("import { EventSource } from 'eventsource'")
        expect(b.code, page).toContain('globalThis.EventSource = EventSource')
      }
    }
    expect(read('docs/realtime.md')).toContain('npm install pocketbase eventsource')
  })

  it('say plainly what is not built yet, with what those endpoints answer', () => {
    const readme = read('README.md')
    const section = readme.slice(readme.indexOf('## Not built yet'))
    // Built now (issue 18): the dashboard has its page and its place in the tour.
    expect(section).not.toContain('Admin dashboard')
    expect(readme).toContain('](docs/dashboard.md)')
    // Built now (issue 17): PostgreSQL and several instances have their own section and pages.
    expect(section).not.toContain('Several instances')
    const scaling = readme.slice(
      readme.indexOf('## Scaling out'),
      readme.indexOf('## What is there'),
    )
    for (const words of ['--workers', 'SVC_DATABASE_URL', 'docs/scaling.md', 'docs/postgresql.md'])
      expect(scaling, words).toContain(words)
    expect(section).toContain('not built yet in svcbase')
    // Every feature whose endpoints answer 501 is named in the list.
    for (const { feature } of NOT_BUILT) expect(section, feature).toContain(feature)
    expect(readme).toMatch(/body keys that name no field are ignored/i)
  })
})

describe('npm start and bin/svcbase.js run compiled JavaScript', () => {
  const pkg = JSON.parse(read('package.json')) as {
    scripts: Record<string, string>
    dependencies: Record<string, string>
    devDependencies: Record<string, string>
  }

  it('builds dist/ in prepare (npm ci) and starts node dist/cli.js, not tsx', () => {
    expect(pkg.scripts.prepare).toBe('npm run build')
    expect(pkg.scripts.start).toMatch(/node dist\/cli\.js serve$/)
    expect(pkg.scripts.start).not.toContain('tsx')
    expect(pkg.dependencies.tsx).toBeUndefined()
    expect(pkg.devDependencies.tsx).toBeDefined()
    expect(read('.gitignore').split('\n')).toContain('dist/')
  })

  const dir = mkdtempSync(join(tmpdir(), 'svcbase-bin-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const runBin = () =>
    new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
      execFile(process.execPath, [join(dir, 'bin', 'svcbase.js'), 'x'], (err, stdout, stderr) =>
        done({ code: err ? Number(err.code) : 0, stdout, stderr }),
      ),
    )

  it('bin/svcbase.js runs dist/cli.js, and says how to build it when missing', async () => {
    mkdirSync(join(dir, 'bin'))
    copyFileSync(join(root, 'bin', 'svcbase.js'), join(dir, 'bin', 'svcbase.js'))
    const missing = await runBin()
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('svcbase is not built')
    expect(missing.stderr).toContain('npm run build')
    mkdirSync(join(dir, 'dist'))
    writeFileSync(
      join(dir, 'dist', 'cli.js'),
      "console.log('compiled cli', process.argv.slice(2).join(' '))\n",
    )
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n')
    const built = await runBin()
    expect(built).toEqual({ code: 0, stdout: 'compiled cli x\n', stderr: '' })
  })
})
