/**
 * listRule through the HTTP API: for each rule, the exact records each caller lists
 * (seed and table language: test/helpers/rules.ts).
 */
import { beforeAll, describe } from 'vitest'
import {
  ALL_POSTS,
  items,
  itRules,
  list,
  rows,
  seedRules,
  setRules,
  type Who,
  type Row,
} from './helpers/rules.js'

seedRules()

/** A listRule and the exact records each caller lists under it (of posts by default). */
interface ListCase {
  rule: string
  collection?: string
  expect: Partial<Record<Who, string[]>>
}

const listRules: ListCase[] = [
  {
    rule: 'author = @request.auth.id',
    expect: { guest: [], alice: ['p1', 'p3'], bob: ['p2'], carol: ['p4'], su: ALL_POSTS },
  },
  // any-of over a multi relation reached through a single relation; a guest's
  // @request.auth.id is NULL, which `?=` matches against an empty set (no team, no members)
  {
    rule: 'team.members.id ?= @request.auth.id',
    expect: { guest: ['p3', 'p4'], alice: ['p1'], bob: ['p1', 'p2'], carol: [], su: ALL_POSTS },
  },
  {
    rule: "@request.auth.id != '' && team.members.id ?= @request.auth.id",
    expect: { guest: [], alice: ['p1'], bob: ['p1', 'p2'], carol: [] },
  },
  {
    rule: "@request.auth.id != '' && team.members:each ?= @request.auth.id",
    expect: { guest: [], alice: ['p1'], bob: ['p1', 'p2'], carol: [] },
  },
  // plain `=` on a multi-valued path: every member must match
  {
    rule: 'team.members.id = @request.auth.id',
    expect: { guest: ['p3', 'p4'], alice: [], bob: ['p2'], carol: [] },
  },
  {
    rule: 'team.members.id != @request.auth.id',
    expect: {
      guest: ['p1', 'p2'],
      alice: ['p2', 'p3', 'p4'],
      bob: ['p3', 'p4'],
      carol: ALL_POSTS,
    },
  },
  {
    rule: 'team.members.id ?!= @request.auth.id',
    expect: { alice: ALL_POSTS, bob: ['p1', 'p3', 'p4'] },
  },
  // a back-relation after a relation
  {
    rule: 'team.members_via_team.user ?= @request.auth.id',
    expect: { guest: ['p3', 'p4'], alice: ['p1'], bob: ['p1', 'p2'], carol: [] },
  },
  { rule: "author.org.plan = 'pro'", expect: { guest: ['p1', 'p3'], bob: ['p1', 'p3'] } },
  // the auth record's own relation
  {
    rule: "@request.auth.org.plan = 'pro'",
    expect: { guest: [], alice: ALL_POSTS, bob: [], carol: [], su: ALL_POSTS },
  },
  {
    rule: "@request.auth.role = 'admin' || author = @request.auth.id",
    expect: { guest: [], alice: ['p1', 'p3'], bob: ['p2'], carol: ALL_POSTS },
  },
  {
    rule: "@request.auth.collectionName = 'users' && status = 'live'",
    expect: { guest: [], alice: ['p1', 'p4'], carol: ['p1', 'p4'] },
  },
  // one @collection join: both conditions hold on the same membership row
  {
    rule: '@collection.members.user ?= @request.auth.id && @collection.members.team ?= team',
    expect: { guest: [], alice: ['p1'], bob: ['p1', 'p2'], carol: [] },
  },
  {
    rule: '@collection.members:m.user ?= @request.auth.id && @collection.members:m.team ?= team',
    expect: { guest: [], alice: ['p1'], bob: ['p1', 'p2'], carol: [] },
  },
  // two aliases: two independent joins of the same collection
  {
    rule: '@collection.members:mine.user ?= @request.auth.id && @collection.members:any.team ?= team',
    expect: { guest: [], alice: ['p1', 'p2'], bob: ['p1', 'p2'], carol: [] },
  },
  { rule: "tags:each ?= 'c'", expect: { guest: ['p4'], alice: ['p4'] } },
  { rule: "tags:each = 'b'", expect: { guest: ['p2'] } },
  { rule: "tags:each != 'c'", expect: { guest: ['p1', 'p2', 'p3'] } },
  { rule: 'tags:length > 1', expect: { guest: ['p1', 'p4'] } },
  { rule: 'tags:length = 0', expect: { bob: ['p3'] } },
  { rule: 'team.members:length = 2', expect: { guest: ['p1'] } },
  { rule: "publishAt != '' && publishAt <= @now", expect: { guest: ['p1', 'p4'] } },
  { rule: 'publishAt > @tomorrow && publishAt > @yearEnd', expect: { alice: ['p2'] } },
  { rule: '@todayStart < @todayEnd && @month >= 1 && @month <= 12', expect: { guest: ALL_POSTS } },
  { rule: "@request.method = 'POST'", expect: { guest: [], alice: [], su: ALL_POSTS } },
  { rule: "@request.context = 'default'", expect: { guest: ALL_POSTS, bob: ALL_POSTS } },
  {
    rule: "@request.headers.authorization ~ 'Bearer '",
    expect: { guest: [], alice: ALL_POSTS, carol: ALL_POSTS },
  },
  {
    collection: 'teams',
    rule: 'members_via_team.user ?= @request.auth.id',
    expect: {
      guest: ['grey'],
      alice: ['red'],
      bob: ['red', 'blue'],
      carol: [],
      su: ['red', 'blue', 'grey'],
    },
  },
  {
    collection: 'teams',
    rule: 'members_via_team.user = @request.auth.id',
    expect: { guest: ['grey'], alice: [], bob: ['blue'], carol: [] },
  },
  {
    collection: 'teams',
    rule: 'members.id ?= @request.auth.id',
    expect: { guest: ['grey'], alice: ['red'], bob: ['red', 'blue'], carol: [] },
  },
  {
    collection: 'users',
    rule: 'id = @request.auth.id || emailVisibility = true',
    expect: {
      guest: ['alice', 'carol'],
      bob: ['alice', 'bob', 'carol'],
      carol: ['alice', 'carol'],
    },
  },
]

describe.each(listRules.map((c) => ({ collection: 'posts', ...c })))(
  '$collection: `$rule`',
  (c) => {
    const { collection } = c
    beforeAll(() => setRules(collection, { listRule: c.rule }))
    const scenarios = rows(
      ...Object.entries(c.expect).map(([who, names]): Row => [
        `${who} lists ${names.join(',') || 'nothing'}`,
        who as Who,
        'GET',
        list(collection),
        200,
        items(...names),
      ]),
    )
    itRules(scenarios)
  },
)
