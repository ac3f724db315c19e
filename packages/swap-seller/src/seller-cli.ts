import { runSellerCommand } from './run-seller-command.ts'

const { code, stdout, stderr } = await runSellerCommand(process.argv.slice(2)).catch(
  (error: unknown) => ({
    code: 1,
    stdout: '',
    stderr: `swap-seller: ${error instanceof Error ? error.message : String(error)}\n`,
  }),
)
process.stdout.write(stdout)
process.stderr.write(stderr)
process.exitCode = code
