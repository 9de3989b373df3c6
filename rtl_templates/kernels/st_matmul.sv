// st_matmul: tiled integer matrix multiply for synthetic tensor graphs. Every cycle it can take
// one A tile (TM x TK) and one B tile (TK x TN) together and add their product into a TM x TN
// accumulator; after KTiles pairs it emits the C tile
//   C[m][n] = sat_OutBits( sum over the KTiles pairs j, sum_k A_j[m][k] * B_j[k][n] )
// (exact sum, then one saturation to the signed OutBits range) and starts the next C tile. It
// runs indefinitely; the compiler orders the A and B streams so that pair j of a C tile is
// (A[m, k_j], B[k_j, n]).
//
// Streams: tokens are tiles, elements row-major within the tile, element 0 at bits [0 +: Bits]:
// A element (m, k) at index m*TK + k, B element (k, n) at k*TN + n, C element (m, n) at
// m*TN + n. Codes are signed, or unsigned where ASigned/BSigned/OutSigned is 0 (an unsigned
// C saturates to 0 .. 2^OutBits - 1). A and B are joined: a pair is taken in one cycle (each ready
// depends on the other stream's valid and on room in the pipeline).
//
// Pipeline: 1 the TM*TN dot products of TK terms (exact, registered), 2 the accumulator (exact,
// AccBits wide) and, on the last pair of a C tile, the saturated C tile into the result register,
// 3 the output register slice (st_skid_buffer); stages 1-3 are st_accumulate_emit, shared with
// st_reduce. With ideal streams pair j of a C tile is taken in cycle j and the C tile leaves in
// cycle KTiles + 2 (compiler/model/matmul_model.h).
`default_nettype none

module st_matmul #(
    /// Rows of the A and C tiles (>= 1).
    parameter int unsigned TM = 2,
    /// Columns of the B and C tiles (>= 1).
    parameter int unsigned TN = 2,
    /// Columns of A / rows of B per tile (>= 1).
    parameter int unsigned TK = 2,
    /// Tile pairs accumulated into one C tile: K / TK (>= 1).
    parameter int unsigned KTiles = 4,
    /// Code width of A (2 .. 32; signed or unsigned per ASigned).
    parameter int unsigned ABits = 8,
    /// Code width of B (2 .. 32; per BSigned).
    parameter int unsigned BBits = 8,
    /// Code width of C (2 .. 64; per OutSigned).
    parameter int unsigned OutBits = 32,
    /// 1: A codes are signed, 0: unsigned.
    parameter int unsigned ASigned = 1,
    /// 1: B codes are signed, 0: unsigned.
    parameter int unsigned BSigned = 1,
    /// 1: C saturates to the signed OutBits range, 0: to the unsigned one.
    parameter int unsigned OutSigned = 1
) (
    input  wire                       clk_i,
    input  wire                       rst_ni,     // synchronous, active low
    input  wire                       a_valid_i,
    output logic                      a_ready_o,
    input  wire  [  TM*TK*ABits-1:0]  a_data_i,
    input  wire                       b_valid_i,
    output logic                      b_ready_o,
    input  wire  [  TK*TN*BBits-1:0]  b_data_i,
    output logic                      valid_o,
    input  wire                       ready_i,
    output logic [TM*TN*OutBits-1:0]  data_o
);

  if (TM < 1 || TN < 1 || TK < 1 || KTiles < 1) begin : gen_bad_shape
    $fatal(1, "st_matmul: TM, TN, TK and KTiles must be >= 1");
  end
  if (ABits < 2 || ABits > 32 || BBits < 2 || BBits > 32 || OutBits < 2 || OutBits > 64)
  begin : gen_bad_bits
    $fatal(1, "st_matmul: ABits and BBits must be 2 .. 32, OutBits 2 .. 64");
  end

  // An unsigned code takes one bit more as a signed value; a product of two signed values fits
  // the sum of their widths; a sum of n terms needs clog2(n) more.
  localparam int unsigned AExt = ABits + ((ASigned != 0) ? 0 : 1);
  localparam int unsigned BExt = BBits + ((BSigned != 0) ? 0 : 1);
  localparam int unsigned DotBits = AExt + BExt + $clog2(TK);
  localparam int unsigned AccBits = DotBits + $clog2(KTiles);
  localparam int unsigned Cells = TM * TN;

  // ---- control: join A and B -----------------------------------------------------------------
  logic advance;  // the register slice can take a token this cycle
  wire take = a_valid_i && b_valid_i && advance;
  assign a_ready_o = advance && b_valid_i;
  assign b_ready_o = advance && a_valid_i;

  // ---- stage 1 input: sum_k A[m][k] * B[k][n], exact ---------------------------------------
  logic [Cells*DotBits-1:0] dots;

  for (genvar m = 0; m < TM; m++) begin : gen_row
    for (genvar n = 0; n < TN; n++) begin : gen_col
      logic signed [DotBits-1:0] dot;
      always_comb begin
        dot = '0;
        for (int unsigned k = 0; k < TK; k++) begin
          logic [ABits-1:0] a_code;
          logic [BBits-1:0] b_code;
          a_code = a_data_i[(m*TK+k)*ABits+:ABits];
          b_code = b_data_i[(k*TN+n)*BBits+:BBits];
          dot = dot + DotBits'($signed({ASigned != 0 && a_code[ABits-1], a_code})) *
                      DotBits'($signed({BSigned != 0 && b_code[BBits-1], b_code}));
        end
      end
      assign dots[(m*TN+n)*DotBits+:DotBits] = dot;
    end
  end

  // ---- stages 1-2 and the output register slice: sum over the KTiles pairs, saturate, emit ----
  st_accumulate_emit #(
      .Cells    (Cells),
      .PartBits (DotBits),
      .AccBits  (AccBits),
      .OutBits  (OutBits),
      .OutSigned(OutSigned),
      .Count    (KTiles),
      .Combiner (0)
  ) u_accumulate (
      .clk_i    (clk_i),
      .rst_ni   (rst_ni),
      .take_i   (take),
      .advance_o(advance),
      .part_i   (dots),
      .valid_o  (valid_o),
      .ready_i  (ready_i),
      .data_o   (data_o)
  );

endmodule

`default_nettype wire
