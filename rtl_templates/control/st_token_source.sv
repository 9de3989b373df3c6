// st_token_source: the token ids the LLM accelerator decodes (docs/accelerator.md §1,
// docs/control.md). After a start handshake carrying n_prompt (P) and the number of steps T
// (1 <= P <= T; the host driver checks this), it emits T token ids on token_*, one per step t:
//   t < P:  prompt[t], taken from prompt_* (in the design: a read DMA of the P prompt ids);
//   t >= P: the argmax of step t-1, taken from argmax_* (the design's argmax output).
// argmax_* carries one id per step t = 0 .. T-1, in order:
//   t <  P-1:      a prompt step's prediction: consumed and dropped;
//   P-1 <= t < T-1: a generated token: to token_* (as step t+1's id) and to gen_* at once;
//   t == T-1:      the last generated token: to gen_* only.
// gen_* therefore carries the T-P+1 generated tokens (to the token write DMA). done_o is high
// for one cycle after the last generated token has left and nothing is held; start_ready_o
// is high while no run is active.
//
// The prompt ids do not wait for the argmax: all P of them may be emitted back to back (the
// layer loop takes one step's vector at a time). A generated id is passed on only once every
// earlier step's id has been emitted (token count == argmax count + 1), which a real argmax, the
// consequence of the previous token, always satisfies.
//
// Outputs token_* and gen_* are registers (one cycle from the input handshake, one token per
// cycle each); prompt_ready_o and argmax_ready_o depend combinationally on token_ready_i /
// gen_ready_i (a pipeline register with pass-through ready, as st_fork). The cycle-exact model
// is compiler/model/token_source_model.h; its Verilator test compares it every cycle.
`default_nettype none

module st_token_source #(
    /// Width of a token id (>= 1).
    parameter int unsigned IdBits = 32,
    /// Width of n_prompt_i and num_steps_i (1 .. 32).
    parameter int unsigned StepBits = 16
) (
    input  wire                clk_i,
    input  wire                rst_ni,          // synchronous, active low
    // start: latches P and T; accepted only while idle
    input  wire                start_valid_i,
    output logic               start_ready_o,
    input  wire  [StepBits-1:0] n_prompt_i,      // P >= 1
    input  wire  [StepBits-1:0] num_steps_i,     // T >= P
    // the P prompt ids
    input  wire                prompt_valid_i,
    output logic               prompt_ready_o,
    input  wire  [  IdBits-1:0] prompt_data_i,
    // the argmax of every step
    input  wire                argmax_valid_i,
    output logic               argmax_ready_o,
    input  wire  [  IdBits-1:0] argmax_data_i,
    // the id of every step (to the embedding gather)
    output logic               token_valid_o,
    input  wire                token_ready_i,
    output logic [  IdBits-1:0] token_data_o,
    // the generated tokens (to the token write DMA)
    output logic               gen_valid_o,
    input  wire                gen_ready_i,
    output logic [  IdBits-1:0] gen_data_o,
    output logic               done_o           // high for one cycle at the end of a run
);

  if (IdBits < 1) begin : gen_bad_id_bits
    $fatal(1, "st_token_source: IdBits must be >= 1");
  end
  if (StepBits < 1 || StepBits > 32) begin : gen_bad_step_bits
    $fatal(1, "st_token_source: StepBits must be 1 .. 32");
  end

  logic                running_q;
  // Ids loaded into the token register (0 .. T; one bit more than T) and that minus one, the
  // argmax ids consumed (0 .. T) and that plus one, each its own register: the compares below
  // see no adder (docs/logic-depth.md).
  logic [StepBits:0] tokens_q, tokens_prev_q, argmaxes_q, argmaxes_next_q;
  // P - 1 and T - 1, latched at start, and the counters' magnitude tests kept as flags, updated
  // as the counters step by one (an equality test each, into a register; docs/logic-depth.md):
  //   below_steps_q: argmaxes_q < T      drop_q: argmaxes_next_q < P
  //   last_q: argmaxes_next_q == T       prompt_left_q: tokens_q < P
  //   in_turn_q: tokens_q == argmaxes_next_q (a generated id's turn)
  logic [StepBits:0] prompt_minus1_q, steps_minus1_q;
  logic below_steps_q, drop_q, last_q, prompt_left_q, in_turn_q;

  logic token_free, gen_free;
  assign token_free = !token_valid_o || token_ready_i;
  assign gen_free   = !gen_valid_o || gen_ready_i;

  // Where the next argmax id goes.
  logic argmax_drop, argmax_last, argmax_to_token, argmax_pending;
  assign argmax_pending  = running_q && below_steps_q;
  assign argmax_drop     = drop_q;
  assign argmax_last     = last_q;
  assign argmax_to_token = !argmax_drop && !argmax_last;

  always_comb begin
    argmax_ready_o = 1'b0;
    if (argmax_pending) begin
      if (argmax_drop) argmax_ready_o = 1'b1;
      else if (argmax_last) argmax_ready_o = gen_free;
      else argmax_ready_o = gen_free && token_free && in_turn_q;
    end
  end
  assign prompt_ready_o = running_q && prompt_left_q && token_free;

  logic prompt_fire, argmax_fire, token_load, gen_load, start, finished;
  assign prompt_fire   = prompt_valid_i && prompt_ready_o;
  assign argmax_fire   = argmax_valid_i && argmax_ready_o;
  assign token_load    = prompt_fire || (argmax_fire && argmax_to_token);
  assign gen_load      = argmax_fire && !argmax_drop;
  assign start_ready_o = !running_q;
  assign start         = start_valid_i && start_ready_o;
  assign finished      = !below_steps_q && !token_valid_o && !gen_valid_o;  // argmaxes_q == T
  assign done_o        = running_q && finished;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      running_q     <= 1'b0;
      token_valid_o <= 1'b0;
      gen_valid_o   <= 1'b0;
    end else begin
      if (start) running_q <= 1'b1;
      else if (done_o) running_q <= 1'b0;
      if (token_load) token_valid_o <= 1'b1;
      else if (token_ready_i) token_valid_o <= 1'b0;
      if (gen_load) gen_valid_o <= 1'b1;
      else if (gen_ready_i) gen_valid_o <= 1'b0;
    end
  end

  // Counters and payload: qualified by running_q and the valid registers, so not reset.
  always_ff @(posedge clk_i) begin
    if (start) begin
      tokens_q    <= '0;
      tokens_prev_q <= '1;
      argmaxes_q  <= '0;
      in_turn_q <= 1'b0;  // 0 != 1
      argmaxes_next_q <= (StepBits + 1)'(1);
      prompt_minus1_q <= (StepBits + 1)'(n_prompt_i) - 1'b1;
      steps_minus1_q <= (StepBits + 1)'(num_steps_i) - 1'b1;
      below_steps_q <= 1'b1;  // 0 < T
      drop_q <= n_prompt_i != StepBits'(1);  // 1 < P
      last_q <= num_steps_i == StepBits'(1);  // 1 == T
      prompt_left_q <= 1'b1;  // 0 < P
    end else begin
      // tokens_q == argmaxes_next_q after the step: unchanged when both or neither count; else
      // tokens_q + 1 == argmaxes_next_q (tokens_q == argmaxes_q), or tokens_q == argmaxes_next_q
      // + 1 (tokens_prev_q == argmaxes_next_q).
      if (token_load && !argmax_fire) in_turn_q <= tokens_q == argmaxes_q;
      else if (argmax_fire && !token_load) in_turn_q <= tokens_prev_q == argmaxes_next_q;
      if (token_load) begin
        tokens_q <= tokens_q + 1'b1;
        tokens_prev_q <= tokens_q;
        // tokens_q + 1 < P: tokens_q < P and tokens_q != P - 1
        prompt_left_q <= prompt_left_q && (tokens_q != prompt_minus1_q);
      end
      if (argmax_fire) begin
        argmaxes_q      <= argmaxes_next_q;
        argmaxes_next_q <= argmaxes_next_q + 1'b1;
        // argmaxes_next_q < T (it is at most T)
        below_steps_q <= !last_q;
        drop_q <= drop_q && (argmaxes_next_q != prompt_minus1_q);
        last_q <= argmaxes_next_q == steps_minus1_q;
      end
    end
    if (token_load) token_data_o <= prompt_fire ? prompt_data_i : argmax_data_i;
    if (gen_load) gen_data_o <= argmax_data_i;
  end

`ifndef SYNTHESIS
  // The host driver guarantees 1 <= P <= T.
  always_ff @(posedge clk_i) begin
    if (rst_ni && start) begin
      assert (num_steps_i != '0 && n_prompt_i != '0 && n_prompt_i <= num_steps_i)
      else $error("st_token_source: started with n_prompt %0d, num_steps %0d; need 1 <= n_prompt <= num_steps",
                  n_prompt_i, num_steps_i);
    end
  end
`endif

endmodule

`default_nettype wire
