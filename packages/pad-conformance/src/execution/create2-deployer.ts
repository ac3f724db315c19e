import type { Hex } from 'viem'

/**
 * Runtime code of a CREATE2 deployer that bubbles the constructor's revert data:
 * calldata is `salt (32 bytes) ++ init code`; it answers the new address (20
 * bytes) or reverts with exactly what the constructor reverted with. Doppler's
 * own deployers (TokenFactory80, DopplerDeployer) do `new X{salt}(...)` from
 * their address, so this code placed at their address (anvil_setCode) creates
 * the contract at the very address the SDK mined, with the same init code.
 * The canonical CREATE2 proxy (0x4e59…956c) would do the same but swallow the
 * revert reason, which is what the near-miss tests read.
 *
 *   PUSH1 32 CALLDATASIZE SUB DUP1 PUSH1 32 PUSH1 0 CALLDATACOPY   mem[0..n) = init code
 *   PUSH1 0 CALLDATALOAD SWAP1 PUSH1 0 PUSH1 0 CREATE2            create2(0, 0, n, salt)
 *   DUP1 PUSH1 ok JUMPI                                            success: jump
 *   RETURNDATASIZE PUSH1 0 DUP1 RETURNDATACOPY RETURNDATASIZE PUSH1 0 REVERT
 *   ok: JUMPDEST PUSH1 0 MSTORE PUSH1 20 PUSH1 12 RETURN           return the address
 */
export const CREATE2_DEPLOYER_RUNTIME: Hex =
  '0x602036038060206000376000359060006000f5806020573d6000803e3d6000fd5b6000526014600cf3'
