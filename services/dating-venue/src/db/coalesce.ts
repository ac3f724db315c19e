/**
 * One statement for many concurrent requests: the calls of one turn of the
 * event loop (the requests one read of the sockets brought) go together, and
 * while a batch is at the database the calls that arrive wait and go
 * together as the next batch (so a call alone waits one turn at most, and a
 * batch never holds a call that arrived after it started: every read sees at
 * least what was committed before its call). Each round trip to PostgreSQL costs the venue about
 * 0.1 ms of CPU in socket writes alone; under load one trip serves many
 * answers (bench/README.md, "Chat answers per second"). A failed batch
 * fails each of its calls, as the single statements would.
 */
export const coalesce = <input, output>(
  run: (inputs: input[]) => Promise<output[]>,
  { maxBatch = 64 } = {},
) => {
  type Waiting = {
    input: input
    resolve: (value: output) => void
    reject: (error: unknown) => void
  }
  let waiting: Waiting[] = []
  let running = false
  const drain = async () => {
    while (waiting.length > 0) {
      const batch = waiting.slice(0, maxBatch)
      waiting = waiting.slice(batch.length)
      try {
        const outputs = await run(batch.map((call) => call.input))
        for (const [index, call] of batch.entries()) call.resolve(outputs[index] as output)
      } catch (error) {
        for (const call of batch) call.reject(error)
      }
    }
    running = false
  }
  return (input: input) =>
    new Promise<output>((resolve, reject) => {
      waiting.push({ input, resolve, reject })
      if (running) return
      running = true
      setImmediate(drain)
    })
}

/** One coalescer per key object (a database), made on first use. */
export const coalescedPer = <key extends object, input, output>(
  make: (key: key) => (input: input) => Promise<output>,
) => {
  const made = new WeakMap<key, (input: input) => Promise<output>>()
  return (key: key) => {
    let call = made.get(key)
    if (!call) {
      call = make(key)
      made.set(key, call)
    }
    return call
  }
}
