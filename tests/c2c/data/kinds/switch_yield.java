import java.util.*;

// a switch expression whose cases yield values (Java 14+)
public class Main {
    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int n = sc.nextInt();
        long total = 0;
        for (int i = 0; i < n; i++) {
            int k = sc.nextInt();
            int w = switch (k % 3) {
                case 0:
                    yield 10;
                case 1: {
                    int t = k * 2;
                    yield t;
                }
                default:
                    yield -1;
            };
            total += w;
        }
        System.out.println(total);
    }
}
