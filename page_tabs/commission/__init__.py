"""The tabs of Avaliação da Comissão (pages/commission.py): Itens (with the member's entry form), Planilha,
Presidência, Andamento, Concordância and Ata."""
