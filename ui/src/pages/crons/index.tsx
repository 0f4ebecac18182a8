/**
 * `#/crons`: the registered cron jobs (`GET /api/crons`: id and expression) with the outcome of
 * their last run from the `_cron_jobs` system collection (last run, status, error), and
 * "Run now" (`POST /api/crons/{id}`, which answers once the run ended).
 */
import { useEffect, useState } from 'preact/hooks'
import { errorMessage, pb } from '../../api'
import { Button } from '../../components/ui'
import { formatDate } from '../../components/operations'
import type { PageProps } from '../../pages'
import { toast } from '../../toasts'

interface Job {
  id: string
  expression: string
}

interface JobRun {
  jobId: string
  source: string
  lastRun: string
  lastStatus: string
  lastError: string
}

export default function CronsPage(_props: PageProps) {
  const [jobs, setJobs] = useState<Job[] | null>(null)
  const [runs, setRuns] = useState<Record<string, JobRun>>({})
  const [error, setError] = useState('')
  const [running, setRunning] = useState<string | null>(null)

  const reload = async () => {
    try {
      const list = (await pb.crons.getFullList()) as Job[]
      setJobs(list)
      setError('')
      // One row per registered job: a handful, read in one page.
      const res = await pb.collection('_cron_jobs').getList(1, 200, { skipTotal: true })
      const byId: Record<string, JobRun> = {}
      for (const r of res.items as unknown as JobRun[]) byId[r.jobId] = r
      setRuns(byId)
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  useEffect(() => {
    void reload()
  }, [])

  const run = async (id: string) => {
    setRunning(id)
    try {
      await pb.crons.run(id)
      await reload()
      toast('success', `${id} ran.`)
    } catch (err) {
      toast('error', errorMessage(err))
    } finally {
      setRunning(null)
    }
  }

  return (
    <div class="stack ops-page crons-page">
      <div class="page-header">
        <h1>Crons</h1>
        <Button kind="link" onClick={() => void reload()}>
          Refresh
        </Button>
      </div>
      <p class="muted">
        Jobs are registered in code (svcbase's own, features', and hook scripts'{' '}
        <code>cronAdd</code>
        ); times are UTC. "Run now" waits for the run to end (up to 30 s).
      </p>
      {error && (
        <p class="error-text" role="alert">
          {error}
        </p>
      )}
      <div class="table-wrap">
        <table class="crons-table">
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Expression</th>
              <th scope="col">Source</th>
              <th scope="col">Last run</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {jobs?.map((j) => {
              const r = runs[j.id]
              return (
                <tr key={j.id} data-job={j.id}>
                  <td class="mono">{j.id}</td>
                  <td class="mono">{j.expression}</td>
                  <td>{r?.source ?? ''}</td>
                  <td>{r?.lastRun ? formatDate(r.lastRun) : <span class="muted">never</span>}</td>
                  <td class="cron-status" title={r?.lastError || undefined}>
                    {r?.lastStatus === 'error' ? (
                      <span class="error-text">error: {r.lastError}</span>
                    ) : r?.lastStatus === 'success' ? (
                      <span class="success-text">success</span>
                    ) : (
                      <span class="muted">–</span>
                    )}
                  </td>
                  <td>
                    <Button
                      busy={running === j.id}
                      disabled={running !== null}
                      aria-label={`Run ${j.id} now`}
                      onClick={() => void run(j.id)}
                    >
                      Run now
                    </Button>
                  </td>
                </tr>
              )
            })}
            {jobs?.length === 0 && (
              <tr>
                <td colSpan={6} class="muted">
                  No cron jobs are registered.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </div>
  )
}
