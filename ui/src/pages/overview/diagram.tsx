/**
 * The relations diagram: an SVG drawn here (no library). One box per collection with its fields,
 * a line from each relation field to the collection it points to. Boxes are links to the
 * collection (`#/collections?collection=NAME`), so Tab reaches them and Enter opens one.
 */
import type { CollectionModel } from 'pocketbase'
import { href } from '../../router'

const BOX_W = 210
const HEAD_H = 28
const ROW_H = 19
const MAX_ROWS = 14
const GAP_X = 90
const GAP_Y = 50
const PAD = 20

interface Box {
  c: CollectionModel
  x: number
  y: number
  h: number
  /** The fields drawn (the first MAX_ROWS), then how many are not. */
  shown: CollectionModel['fields']
  hidden: number
}

interface Line {
  key: string
  d: string
  label: string
}

/** Places the boxes on a grid, row by row (each row as tall as its tallest box). */
export function layout(list: CollectionModel[]): { boxes: Box[]; width: number; height: number } {
  const cols = Math.max(1, Math.min(4, Math.ceil(Math.sqrt(list.length))))
  const boxes: Box[] = []
  let y = PAD
  for (let i = 0; i < list.length; i += cols) {
    const row = list.slice(i, i + cols).map((c, j) => {
      const shown = c.fields.slice(0, MAX_ROWS)
      const hidden = c.fields.length - shown.length
      const h = HEAD_H + (shown.length + (hidden > 0 ? 1 : 0)) * ROW_H + 8
      return { c, x: PAD + j * (BOX_W + GAP_X), y, h, shown, hidden }
    })
    boxes.push(...row)
    y += Math.max(...row.map((b) => b.h)) + GAP_Y
  }
  const width = PAD * 2 + Math.min(cols, list.length || 1) * (BOX_W + GAP_X) - GAP_X
  return { boxes, width, height: Math.max(y - GAP_Y + PAD, 80) }
}

/** A line from field row `i` of `from` to the header of `to`. */
function line(from: Box, i: number, to: Box): string {
  const fy = from.y + HEAD_H + i * ROW_H + ROW_H / 2
  const ty = to.y + HEAD_H / 2
  if (from === to) {
    const x = from.x + BOX_W
    return `M ${x} ${fy} C ${x + 50} ${fy}, ${x + 50} ${ty}, ${x} ${ty}`
  }
  const right = to.x >= from.x + BOX_W / 2
  const sx = right ? from.x + BOX_W : from.x
  const tx = to.x + BOX_W / 2 >= from.x + BOX_W / 2 && to.x !== from.x ? to.x : to.x + BOX_W
  const bend = Math.max(40, Math.abs(tx - sx) / 2)
  const c1 = right ? sx + bend : sx - bend
  const c2 = tx === to.x ? tx - bend : tx + bend
  return `M ${sx} ${fy} C ${c1} ${fy}, ${c2} ${ty}, ${tx} ${ty}`
}

/** The diagram of `list` (relations to collections not in `list` are left out). */
export function RelationsDiagram(props: { list: CollectionModel[]; all: CollectionModel[] }) {
  const names = new Map(props.all.map((c) => [c.id, c.name]))
  const { boxes, width, height } = layout(props.list)
  const byId = new Map(boxes.map((b) => [b.c.id, b]))
  const lines: Line[] = []
  for (const b of boxes) {
    b.shown.forEach((f, i) => {
      if (f.type !== 'relation') return
      const target = byId.get(String(f.collectionId ?? ''))
      if (!target) return
      lines.push({
        key: `${b.c.id}.${f.name}`,
        d: line(b, i, target),
        label: `${b.c.name}.${f.name} → ${target.c.name}`,
      })
    })
  }
  return (
    <div class="diagram-wrap">
      <svg
        class="relations-diagram"
        width={width}
        height={height}
        viewBox={`0 0 ${width} ${height}`}
        role="group"
        aria-label={`Relations between ${boxes.length} collections: ${lines.length} relation fields`}
      >
        <defs>
          <marker
            id="rel-arrow"
            viewBox="0 0 10 10"
            refX="9"
            refY="5"
            markerWidth="7"
            markerHeight="7"
            orient="auto-start-reverse"
          >
            <path d="M 0 0 L 10 5 L 0 10 z" class="rel-arrow" />
          </marker>
        </defs>
        {boxes.map((b) => (
          <a
            key={b.c.id}
            href={href('collections', { collection: b.c.name })}
            class="diagram-box"
            aria-label={`${b.c.name} (${b.c.type} collection, ${b.c.fields.length} fields)`}
            data-collection={b.c.name}
          >
            <rect x={b.x} y={b.y} width={BOX_W} height={b.h} rx="6" class="box-body" />
            <rect x={b.x} y={b.y} width={BOX_W} height={HEAD_H} rx="6" class="box-head" />
            <text x={b.x + 10} y={b.y + 19} class="box-title">
              {b.c.name}
            </text>
            <text x={b.x + BOX_W - 10} y={b.y + 19} class="box-type" text-anchor="end">
              {b.c.type}
            </text>
            {b.shown.map((f, i) => (
              <text
                key={f.name}
                x={b.x + 10}
                y={b.y + HEAD_H + i * ROW_H + 14}
                class={f.type === 'relation' ? 'field-name relation' : 'field-name'}
              >
                {f.name}
                <tspan class="field-type" dx="6">
                  {f.type === 'relation'
                    ? `→ ${byId.get(String(f.collectionId ?? ''))?.c.name ?? names.get(String(f.collectionId ?? '')) ?? '?'}`
                    : f.type}
                </tspan>
              </text>
            ))}
            {b.hidden > 0 && (
              <text x={b.x + 10} y={b.y + HEAD_H + b.shown.length * ROW_H + 14} class="field-type">
                +{b.hidden} more
              </text>
            )}
          </a>
        ))}
        {lines.map((l) => (
          <path key={l.key} d={l.d} class="rel-line" marker-end="url(#rel-arrow)">
            <title>{l.label}</title>
          </path>
        ))}
      </svg>
    </div>
  )
}
